/**
 * The checks every platform folder is held to, as functions of a tree's root, so a test can run them
 * on the real tree and on a temporary copy with a planted platform (test/platforms/sixth-platform).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistryLine } from '../../platforms/registry.ts';
import type { PlatformAdapter } from '../../src/adapter.ts';
import { toOpenApiPath } from '../../src/server/openapi-parts.ts';

const REQUIRED = ['index.ts', 'config.ts', 'parse.ts', 'render.ts', 'platform.ts', 'README.md'];
/** Modules that make outbound calls to the platform; a folder with one needs errors.ts. */
const OUTBOUND = ['api.ts', 'transport.ts'];

export const title = (name: string) => name[0]!.toUpperCase() + name.slice(1);

/** The folders under `platformsDir`. */
export function platformFolders(platformsDir: string): string[] {
  return readdirSync(platformsDir, { withFileTypes: true })
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

/** What is missing from the platform folder `name` under `platformsDir` (empty when it has the shape). */
export function shapeProblems(platformsDir: string, name: string): string[] {
  const dir = join(platformsDir, name);
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
  needs('platform.ts', 'platform');
  if (OUTBOUND.some(has)) {
    if (!has('errors.ts'))
      problems.push(
        `${name}/errors.ts is missing (it calls out: ${OUTBOUND.filter(has).join(', ')})`,
      );
    else needs('errors.ts', 'toPlatformError');
  }
  if (!read('../registry.ts').includes(`import('./${name}/platform.ts')`))
    problems.push(`registry.ts has no line for ${name}`);
  return problems;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map(
    (m) => m[1]!,
  );
}

/** The registry line whose SDK `specifier` is (a package named by one of its prefixes), if any. */
function ownerOf(platforms: readonly RegistryLine[], specifier: string): string | undefined {
  return platforms.find((p) => p.sdk.some((prefix) => specifier.startsWith(prefix)))?.name;
}

/**
 * Every import of a platform SDK outside its own folder under `root` (src/ imports none; a
 * platform imports only its own), and every reach of src/ into platforms/ other than the CLI's
 * import of the registry, as "file: specifier".
 */
export function sdkOffenders(root: string, platforms: readonly RegistryLine[]): string[] {
  const isCli = (f: string) =>
    f === join(root, 'src', 'cli.ts') || f.startsWith(`${join(root, 'src', 'cli')}/`);
  const core = tsFiles(join(root, 'src')).flatMap((f) =>
    importsOf(f)
      .filter(
        (i) =>
          ownerOf(platforms, i) !== undefined ||
          (i.includes('platforms/') && !(isCli(f) && i.endsWith('platforms/registry.ts'))),
      )
      .map((i) => `${f}: ${i}`),
  );
  const crossed = platforms.flatMap((p) =>
    tsFiles(join(root, 'platforms', p.name)).flatMap((f) =>
      importsOf(f)
        .filter((i) => (ownerOf(platforms, i) ?? p.name) !== p.name)
        .map((i) => `${f}: ${i}`),
    ),
  );
  return [...core, ...crossed];
}

/** The adapters' routes that `doc` (an OpenAPI document) does not describe, as "METHOD path". */
export function undocumentedRoutes(
  doc: { paths: Record<string, Record<string, unknown>> },
  adapters: PlatformAdapter[],
): string[] {
  return adapters.flatMap((a) =>
    a.routes
      .filter((r) => !doc.paths[toOpenApiPath(r.path)]?.[r.method.toLowerCase()])
      .map((r) => `${a.platform}: ${r.method} ${r.path}`),
  );
}
