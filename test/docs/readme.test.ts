/** README names every variable the code reads, and no variable the code does not read. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { platformEnvVars } from '../../platforms/registry.ts';
import { CORE_ENV_VARS } from '../../src/config/config.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|mjs|js)$/.test(name) ? [readFileSync(path, 'utf8')] : [];
  });
}

it('documents every environment variable, and only real ones', async () => {
  const readme = readFileSync('README.md', 'utf8');
  const read = [...CORE_ENV_VARS, ...(await platformEnvVars())];
  expect(read.filter((v) => !readme.includes(`\`${v}\``))).toEqual([]);
  const code = [
    ...sources('src'),
    ...sources('platforms'),
    ...sources('scripts'),
    ...sources('bin'),
  ].join('\n');
  const named = new Set([...readme.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)].map((m) => m[1]!));
  const readByNode = new Set(['NODE_EXTRA_CA_CERTS', 'NODE_ENV', 'NODE_OPTIONS']);
  expect([...named].filter((v) => !code.includes(v) && !readByNode.has(v))).toEqual([]);
});
