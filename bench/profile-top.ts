/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by file, so a
 * benchmark's note can say where the time goes. Usage: tsx bench/profile-top.ts <file> [rows] [filter]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, rowsArg, filter] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/profile-top.ts <file.cpuprofile> [rows] [url filter]');
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const totalUs = profile.endTime - profile.startTime;
const short = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\//, 'node_modules/')
    .replace(/.*\/work\/main\//, '');
const fnTime = new Map<string, number>();
const fileTime = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const url = short(n.callFrame.url) || '(native)';
  if (filter && !url.includes(filter)) continue;
  const fn = `${n.callFrame.functionName || '(anonymous)'}  ${url}:${n.callFrame.lineNumber + 1}`;
  fnTime.set(fn, (fnTime.get(fn) ?? 0) + us);
  const group = url.startsWith('node_modules/')
    ? url
        .split('/')
        .slice(0, url.startsWith('node_modules/@') ? 3 : 2)
        .join('/')
    : url;
  fileTime.set(group, (fileTime.get(group) ?? 0) + us);
}
const top = (m: Map<string, number>, title: string) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(
      `${((us / totalUs) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`,
    );
};
// Inclusive (self + callees) time per package/file, counted once per sample however deep it recurs.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const group = (url: string) => {
  const u = short(url) || '(native)';
  return u.startsWith('node_modules/')
    ? u
        .split('/')
        .slice(0, u.startsWith('node_modules/@') ? 3 : 2)
        .join('/')
    : u;
};
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  const seen = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const g = group(byId.get(n)!.callFrame.url);
    if (g.startsWith('node:') || g === '(native)') continue;
    if (!seen.has(g)) {
      seen.add(g);
      inclusive.set(g, (inclusive.get(g) ?? 0) + us);
    }
  }
}
console.log(`profile: ${(totalUs / 1e6).toFixed(1)} s wall`);
top(fileTime, 'self time by file / package');
top(fnTime, 'self time by function');
top(inclusive, 'inclusive time by file / package (self + everything it called)');
// Inclusive time per function of ours (not node_modules, not node:), to see which step costs.
const fnInclusive = new Map<string, number>();
for (const [id, us] of self) {
  const seen = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const f = byId.get(n)!.callFrame;
    const u = short(f.url);
    if (!u || u.startsWith('node:') || u.startsWith('node_modules/') || u.startsWith('wasm:'))
      continue;
    const k = `${f.functionName || '(anonymous)'}  ${u.replace(/.*\/(src|platforms|bench|test)\//, '$1/')}`;
    if (!seen.has(k)) {
      seen.add(k);
      fnInclusive.set(k, (fnInclusive.get(k) ?? 0) + us);
    }
  }
}
top(fnInclusive, 'inclusive time by function of ours');
