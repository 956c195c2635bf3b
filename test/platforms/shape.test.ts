/**
 * Every platform folder has the same shape (README "Platform folders"): the modules and exports are
 * derived from the folder's name, so a new platform is held to them as soon as its folder exists.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = 'platforms';
const REQUIRED = ['index.ts', 'config.ts', 'parse.ts', 'render.ts', 'README.md'];
/** Modules that make outbound calls to the platform; a folder with one needs errors.ts. */
const OUTBOUND = ['api.ts', 'transport.ts'];

const title = (name: string) => name[0]!.toUpperCase() + name.slice(1);

function platformFolders(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** `export function NAME`, `export const NAME`, `export { NAME }`, `export type NAME`, ... */
function exportsName(source: string, name: string): boolean {
  const declared = new RegExp(
    `export\\s+(?:async\\s+)?(?:function|const|class|interface|type)\\s+${name}\\b`,
  );
  const listed = new RegExp(`export\\s+(?:type\\s+)?\\{[^}]*\\b(?:type\\s+)?${name}\\b[^}]*\\}`);
  return declared.test(source) || listed.test(source);
}

/** What is missing from the platform folder `name` under `root` (empty when it has the shape). */
function shapeProblems(root: string, name: string): string[] {
  const dir = join(root, name);
  const has = (file: string) => existsSync(join(dir, file));
  const read = (file: string) => (has(file) ? readFileSync(join(dir, file), 'utf8') : '');
  const problems = REQUIRED.filter((f) => !has(f)).map((f) => `${name}/${f} is missing`);
  const needs = (file: string, exported: string) => {
    if (has(file) && !exportsName(read(file), exported))
      problems.push(`${name}/${file} does not export ${exported}`);
  };
  needs('index.ts', `create${title(name)}Adapter`);
  needs('index.ts', `${title(name)}AdapterOptions`);
  needs('config.ts', `${name.toUpperCase()}_ENV_VARS`);
  needs('config.ts', `read${title(name)}Config`);
  if (OUTBOUND.some(has)) {
    if (!has('errors.ts'))
      problems.push(
        `${name}/errors.ts is missing (it calls out: ${OUTBOUND.filter(has).join(', ')})`,
      );
    else needs('errors.ts', 'toPlatformError');
  }
  if (!read('../registry.ts').includes(`'./${name}/config.ts'`))
    problems.push(`registry.ts does not read ${name}/config.ts`);
  return problems;
}

describe('platform folders share one shape', () => {
  const folders = platformFolders(ROOT);

  it('finds the five platforms', () => {
    expect(folders).toEqual(['discord', 'slack', 'teams', 'telegram', 'web']);
  });

  it.each(folders)('%s has the required modules and exports', (name) => {
    expect(shapeProblems(ROOT, name)).toEqual([]);
  });

  it.each(folders)('%s: its index really exports a create<Name>Adapter function', async (name) => {
    const index = (await import(`../../platforms/${name}/index.ts`)) as Record<string, unknown>;
    const config = (await import(`../../platforms/${name}/config.ts`)) as Record<string, unknown>;
    expect(typeof index[`create${title(name)}Adapter`]).toBe('function');
    expect(typeof config[`read${title(name)}Config`]).toBe('function');
    expect(Array.isArray(config[`${name.toUpperCase()}_ENV_VARS`])).toBe(true);
  });

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
        'registry.ts does not read matrix/config.ts',
      ]);
    });
  });
});
