/**
 * Every platform folder has the same shape (docs/adding-a-platform.md): the modules and exports are
 * derived from the folder's name, so a new platform is held to them as soon as its folder exists, and
 * every folder is a line of platforms/registry.ts (and every line a folder).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLATFORMS } from '../../platforms/registry.ts';
import { platformFolders, shapeProblems, title } from '../helpers/platform-checks.ts';

const ROOT = 'platforms';

describe('platform folders share one shape', () => {
  const folders = platformFolders(ROOT);

  it('each folder is a registry line, and each line a folder', () => {
    expect(PLATFORMS.map((p) => p.name).sort()).toEqual(folders);
    expect(folders.length).toBeGreaterThanOrEqual(5);
  });

  it.each(folders)('%s has the required modules and exports', (name) => {
    expect(shapeProblems(ROOT, name)).toEqual([]);
  });

  it.each(PLATFORMS.map((p) => [p.name, p] as const))(
    '%s: its definition is the folder’s config and factory',
    async (name, line) => {
      const index = (await import(`../../platforms/${name}/index.ts`)) as Record<string, unknown>;
      const config = (await import(`../../platforms/${name}/config.ts`)) as Record<string, unknown>;
      const { platform } = await line.load();
      expect(typeof index[`create${title(name)}Adapter`]).toBe('function');
      expect(typeof config[`read${title(name)}Config`]).toBe('function');
      expect(platform.envVars).toEqual(config[`${name.toUpperCase()}_ENV_VARS`]);
      expect(typeof platform.create).toBe('function');
      expect(Object.keys(platform.routes).length).toBeGreaterThan(0);
    },
  );

  describe('a folder that breaks the shape is caught', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'hitl-shape-'));
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));
    const plant = (name: string, from: string) => {
      cpSync(join(ROOT, from), join(tmp, name), { recursive: true });
      return join(tmp, name);
    };
    cpSync(join(ROOT, 'registry.ts'), join(tmp, 'registry.ts'));

    it('a missing module', () => {
      const dir = plant('web', 'web');
      rmSync(join(dir, 'parse.ts'));
      expect(shapeProblems(tmp, 'web')).toEqual(['web/parse.ts is missing']);
    });

    it('a missing export, errors.ts beside an outbound api.ts, and a folder the registry ignores', () => {
      const dir = plant('slack', 'slack');
      const index = readFileSync(join(dir, 'index.ts'), 'utf8');
      rmSync(join(dir, 'errors.ts'));
      const renamed = index.replace('export function createSlackAdapter', 'function createSlack');
      writeFileSync(join(dir, 'index.ts'), renamed);
      plant('matrix', 'web');
      expect(shapeProblems(tmp, 'slack')).toEqual([
        'slack/index.ts does not export createSlackAdapter',
        'slack/errors.ts is missing (it calls out: api.ts)',
      ]);
      expect(shapeProblems(tmp, 'matrix')).toEqual([
        'matrix/index.ts does not export createMatrixAdapter',
        'matrix/index.ts does not export MatrixAdapterOptions',
        'matrix/config.ts does not export MATRIX_ENV_VARS',
        'matrix/config.ts does not export readMatrixConfig',
        'registry.ts has no line for matrix',
      ]);
    });
  });
});
