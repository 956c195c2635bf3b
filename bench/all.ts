/**
 * Runs every benchmark, each in a fresh process, and prints one table of their figures in the
 * shape docs/BENCHMARKS.md uses. `npm run bench` (quick sizes, each under two minutes here) or
 * `npm run bench -- --full` (the issue's sizes; the one-chat pacing run alone takes ~17 minutes).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchArgs, wants } from './lib/args.ts';
import { type Figure, fmt, machine } from './lib/stats.ts';

const args = benchArgs();
const passOn = process.argv.slice(2).filter((a) => !a.startsWith('--only'));
const results: Array<Figure & { ratio: number | null }> = [];

for (const bench of ['tap', 'intake', 'watch', 'pace', 'asks']) {
  if (!wants(args, bench)) continue;
  console.log(`\n=== ${bench} ===`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL(`./${bench}.ts`, import.meta.url)), ...passOn],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('RESULT ')) results.push(JSON.parse(line.slice(7)));
      else console.log(line);
    }
  });
  const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  console.log(`(${bench}: ${fmt((performance.now() - started) / 1000)} s, exit ${code})`);
  if (code !== 0) process.exitCode = 1;
}

const date = new Date().toISOString().slice(0, 10);
console.log(`\n| benchmark | figure | hitl-relay | baseline | ratio | goal | machine | date |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const f of results) {
  const goal = f.goal
    ? `${f.goal}${f.met === null ? '' : f.met ? ' (met)' : ' (**not met**)'}`
    : '';
  console.log(
    `| ${f.bench} | ${f.figure} | ${fmt(f.value)} ${f.unit} | ${f.baseline === null ? '-' : `${fmt(f.baseline)} ${f.unit}`} | ${f.ratio === null ? '-' : `${fmt(f.ratio)}x`} | ${goal} | ${machine()} | ${date} |`,
  );
}
