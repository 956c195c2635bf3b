/** docs/CONFORMANCE.md names a test for each requirement: every id in its Test column is a test name. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return testFiles(p);
    // Test files, and the shared contracts (test/contract/*.ts) that each store's test file runs.
    return f.endsWith('.ts') ? [p] : [];
  });
}

it('CONFORMANCE-1 every id in the Test column of docs/CONFORMANCE.md starts a test name', () => {
  const doc = readFileSync(join(ROOT, 'docs/CONFORMANCE.md'), 'utf8');
  const ids = new Set<string>();
  for (const line of doc.split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line.split('|').map((c) => c.trim());
    const test = cells.at(-2) ?? '';
    for (const m of test.matchAll(/\b[A-Z]+-\d+\b/g)) ids.add(m[0]);
  }
  expect(ids.size).toBeGreaterThan(50);
  const sources = testFiles(join(ROOT, 'test')).map((f) => readFileSync(f, 'utf8'));
  // A test name begins with its id: it('ID …'), it.each(…)('ID …'), it(`ID …`).
  const missing = [...ids].filter(
    (id) =>
      !sources.some((s) =>
        new RegExp(`\\bit(?:\\.each\\([\\s\\S]*?\\))?\\(\\s*['"\`]${id} `).test(s),
      ),
  );
  expect(missing).toEqual([]);
});
