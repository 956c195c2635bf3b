/**
 * The house rules, enforced: src/ imports no platform SDK, and each platform's SDK (its line in
 * platforms/registry.ts) stays in its folder. depcruise checks the same in `npm run check`; this
 * reads the source directly, so a depcruise misconfiguration cannot hide a breach.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLATFORMS } from '../../platforms/registry.ts';
import { sdkOffenders } from '../helpers/platform-checks.ts';

const repo = resolve(import.meta.dirname, '..', '..');

describe('import boundaries', () => {
  it('src/ imports no platform SDK, each platform only its own, and only the CLI reaches the registry', () => {
    expect(sdkOffenders(repo, PLATFORMS)).toEqual([]);
  });

  it('catches a planted breach of each kind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hitl-imports-'));
    try {
      const [first, second] = PLATFORMS.filter((p) => p.sdk.length);
      const plant = (file: string, text: string) => {
        mkdirSync(join(dir, file, '..'), { recursive: true });
        writeFileSync(join(dir, file), text);
      };
      plant('src/x.ts', `import '${first!.sdk[0]}';\n`);
      plant('src/y.ts', `import '../platforms/${first!.name}/render.ts';\n`);
      plant(
        `platforms/${second!.name}/z.ts`,
        `export const z = () => import('${first!.sdk[0]}');\n`,
      );
      for (const p of PLATFORMS) mkdirSync(join(dir, 'platforms', p.name), { recursive: true });
      expect(sdkOffenders(dir, PLATFORMS).map((o) => o.slice(dir.length + 1))).toEqual([
        `src/x.ts: ${first!.sdk[0]}`,
        `src/y.ts: ../platforms/${first!.name}/render.ts`,
        `platforms/${second!.name}/z.ts: ${first!.sdk[0]}`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
