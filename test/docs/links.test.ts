/**
 * The docs hold together: every relative link in README, SECURITY.md, docs/ and the platform
 * guides points at a file that exists (and a heading that exists, for `#anchor` links), and every
 * page in docs/ is linked from README's "How do I…" index.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { expect, it } from 'vitest';

function markdown(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdown(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const PAGES = [
  'README.md',
  'SECURITY.md',
  ...markdown('docs'),
  ...readdirSync('platforms')
    .map((p) => `platforms/${p}/README.md`)
    .filter((p) => existsSync(p)),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(path: string): Set<string> {
  const text = readFileSync(path, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.trim())));
}

/** Links outside code: [text](target), the target relative (no scheme, no leading slash). */
function linksOf(path: string): string[] {
  const text = readFileSync(path, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith('/'));
}

/** Pages another branch is writing, linked ahead of time (drop each once it has landed). */
const PENDING = new Set<string>();

it('every relative link in the docs points at a file and a heading that exist', () => {
  const broken: string[] = [];
  for (const page of PAGES)
    for (const link of linksOf(page)) {
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file ? normalize(join(dirname(page), file)) : page;
      if (PENDING.has(target)) continue;
      if (!existsSync(target)) broken.push(`${page}: ${link} (no ${target})`);
      else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor))
        broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`);
    }
  expect(broken).toEqual([]);
});

it('README stays a front door: at most 220 lines, and its index links every page in docs/', () => {
  const readme = readFileSync('README.md', 'utf8');
  expect(readme.split('\n').length).toBeLessThanOrEqual(220);
  const index = readme.split('## How do I')[1]?.split('\n## ')[0] ?? '';
  const linked = new Set(linksOf('README.md').filter((l) => index.includes(`(${l})`)));
  const pages = readdirSync('docs').filter((f) => f.endsWith('.md'));
  expect(pages.filter((p) => ![...linked].some((l) => l.split('#')[0] === `docs/${p}`))).toEqual(
    [],
  );
});
