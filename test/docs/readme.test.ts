/** The docs name only variables the code reads (docs/configuration.md lists every one it reads). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, ext);
    return ext.test(name) ? [path] : [];
  });
}

it('README and docs/ name no variable the code does not read', () => {
  const docs = ['README.md', 'SECURITY.md', ...files('docs', /\.md$/)]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const code = ['src', 'platforms', 'scripts', 'bin', 'test', 'bench', '.ci']
    .flatMap((d) => files(d, /(\.(ts|mjs|js|sh)|^run)$/))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const named = new Set([...docs.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)].map((m) => m[1]!));
  const readByOthers = new Set([
    'NODE_EXTRA_CA_CERTS',
    'NODE_ENV',
    'NODE_OPTIONS',
    'POSTGRES_PASSWORD',
  ]);
  expect([...named].filter((v) => !code.includes(v) && !readByOthers.has(v))).toEqual([]);
});

it('asks for the npm that Node 20 ships (10), not a newer one', () => {
  const readme = readFileSync('README.md', 'utf8');
  expect(readme).not.toMatch(/npm (>= ?)?11(?! ?\))/);
  expect(readme).toMatch(/npm it ships \(10 or 11\)/);
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
    engines: Record<string, string>;
  };
  expect(Object.keys(pkg.engines)).toEqual(['node']);
});
