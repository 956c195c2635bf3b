/**
 * SECURITY.md's promises table: one promise a row, rows a person can read, and every test a row
 * names exists (the file under test/, and the quoted test name in it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

/** The rows of the table under "## Promises": [id, promise, proved by]. */
function promiseRows(): string[][] {
  const page = readFileSync('SECURITY.md', 'utf8');
  const section = page.split('## Promises')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| ---') && !l.startsWith('| #'))
    .map((l) =>
      l
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim()),
    );
}

/** The titles of a test file's it / test / describe calls (a template title keeps its `${…}`). */
function testTitles(source: string): string[] {
  const call = /\b(?:it|test|describe)(?:\.\w+)*\(\s*(['"`])((?:\\.|(?!\1)[\s\S])*)\1/g;
  return [...source.matchAll(call)].map((m) => m[2]!.replace(/\s+/g, ' '));
}

it('SECURITY.md lists one promise a row, each short and with an id of its threat', () => {
  const rows = promiseRows();
  expect(rows.length).toBeGreaterThan(40);
  const ids = rows.map((r) => r[0]);
  expect(new Set(ids).size, 'ids are unique').toBe(ids.length);
  for (const [id, promise, proof] of rows) {
    expect(id, 'an id is a threat letter and a number').toMatch(/^[A-Z]\d+$/);
    expect(promise!.length, `${id}: a promise a person can read`).toBeLessThanOrEqual(260);
    expect(proof!.length, `${id}: the proof names a test`).toBeLessThanOrEqual(260);
  }
});

it('every test SECURITY.md names exists: the file, and the quoted name in it', () => {
  const missing: string[] = [];
  for (const [id, , proof] of promiseRows()) {
    const refs = [...proof!.matchAll(/`([\w./-]+\.(?:test\.)?ts)` › "([^"]+)"/g)];
    if (refs.length === 0) missing.push(`${id}: names no test`);
    for (const [, file, name] of refs) {
      const path = `test/${file}`;
      if (!existsSync(path)) missing.push(`${id}: ${path} does not exist`);
      else if (!testTitles(readFileSync(path, 'utf8')).some((t) => t.includes(name!)))
        missing.push(`${id}: no test titled "…${name}…" in ${path}`);
    }
  }
  expect(missing).toEqual([]);
});
