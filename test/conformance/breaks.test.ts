/**
 * The list of `npm run mutate` (scripts/mutate/breaks.ts) cannot rot silently: each break's text is
 * in its file exactly once, its tests exist and name what it says, its row is a row of
 * docs/CONFORMANCE.md, and every MUST / MUST NOT row marked yes has a break or a reason why not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { BREAKS, countOf, UNBREAKABLE } from '../../scripts/mutate/breaks.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (f: string) => readFileSync(`${ROOT}${f}`, 'utf8');

/** The rows of docs/CONFORMANCE.md: requirement, level, status. */
function rows(): Array<{ requirement: string; level: string; status: string }> {
  return read('docs/CONFORMANCE.md')
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| Requirement') && !l.startsWith('| ---'))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return { requirement: cells[1] ?? '', level: cells[2] ?? '', status: cells[3] ?? '' };
    });
}

it('MUTATE-1 every break replaces a text found exactly once in its file, with another text', () => {
  const wrong = BREAKS.filter(
    (b) =>
      !existsSync(`${ROOT}${b.file}`) || countOf(read(b.file), b.from) !== 1 || b.from === b.to,
  ).map((b) => b.id);
  expect(wrong).toEqual([]);
  expect(new Set(BREAKS.map((b) => b.id)).size).toBe(BREAKS.length);
  expect(BREAKS.length).toBeGreaterThanOrEqual(30);
});

it('MUTATE-2 every break names test files that exist and tests that are in them', () => {
  const missing = BREAKS.flatMap((b) => {
    const sources = b.tests.map((f) => (existsSync(`${ROOT}${f}`) ? read(f) : ''));
    return b.names
      .filter(
        (n) =>
          !sources.some((s) =>
            /^[A-Z]+-\d+$/.test(n)
              ? new RegExp(`\\bit(?:\\.each\\([\\s\\S]*?\\))?\\(\\s*['"\`]${n} `).test(s)
              : s.includes(n),
          ),
      )
      .map((n) => `${b.id}: ${n}`);
  });
  expect(missing).toEqual([]);
});

it('MUTATE-3 every break is tied to a row; every MUST / MUST NOT row proven yes has a break or a reason', () => {
  const all = rows();
  const unknown = BREAKS.filter((b) => !all.some((r) => r.requirement.startsWith(b.row))).map(
    (b) => b.id,
  );
  expect(unknown).toEqual([]);
  const bare = all
    .filter((r) => /^MUST/.test(r.level) && /^yes/.test(r.status))
    .filter((r) => !BREAKS.some((b) => r.requirement.startsWith(b.row)))
    .filter((r) => !Object.keys(UNBREAKABLE).some((k) => r.requirement.startsWith(k)))
    .map((r) => r.requirement);
  expect(bare).toEqual([]);
});
