/** `npm run check` runs scripts/type-names.mjs: an exported type name defined twice fails it. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..', '..');
const script = join(repo, 'scripts', 'type-names.mjs');

async function names(...roots: string[]): Promise<{ code: number; out: string }> {
  return run(process.execPath, [script, ...roots], { cwd: repo }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code?: number; stdout?: string }) => ({ code: e.code ?? 1, out: e.stdout ?? '' }),
  );
}

describe('exported type names are defined once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-type-names-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('src/ and platforms/ have no duplicate', async () => {
    expect(await names()).toMatchObject({ code: 0 });
  });

  it('a second definition of a name fails, naming both places', async () => {
    mkdirSync(join(dir, 'a'), { recursive: true });
    mkdirSync(join(dir, 'b'), { recursive: true });
    writeFileSync(join(dir, 'a', 'one.ts'), 'export interface Answer {\n  a: 1;\n}\n');
    writeFileSync(
      join(dir, 'b', 'two.ts'),
      'export type Answer = { b: 2 };\nexport class Kept {}\n',
    );
    // Not exported, or merged in one file: not a second definition.
    writeFileSync(
      join(dir, 'b', 'three.ts'),
      'interface Answer {\n  c: 3;\n}\nexport interface Merged {}\nexport interface Merged {}\n',
    );
    const r = await names(join(dir, 'a'), join(dir, 'b'));
    expect(r.code).toBe(1);
    expect(r.out).toContain('defined more than once: 1');
    expect(r.out).toContain(`Answer: ${join(dir, 'a', 'one.ts')}:1, ${join(dir, 'b', 'two.ts')}:1`);
  });
});
