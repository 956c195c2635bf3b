/**
 * Adding a platform is one folder and one registry line (docs/adding-a-platform.md): a temporary
 * copy of the tree gets a made-up sixth platform, "matrix", whose SDK is the `yaml` package (which
 * nothing else imports), and nothing else. The SDK boundary (depcruise and the source scan), the
 * folder shape and the OpenAPI document all pick it up from that line.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Registry from '../../platforms/registry.ts';
import type * as Config from '../../src/config/config.ts';
import type * as OpenApi from '../../src/server/openapi.ts';
import {
  platformFolders,
  sdkOffenders,
  shapeProblems,
  undocumentedRoutes,
} from '../helpers/platform-checks.ts';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..', '..');

/** The sixth platform's folder, file by file: the smallest folder of the required shape. */
const MATRIX: Record<string, string> = {
  'README.md': '# Matrix\n\nA made-up platform of the registry test.\n',
  'config.ts': `
export const MATRIX_ENV_VARS: readonly string[] = ['MATRIX_TOKEN'];
export interface MatrixConfig { token: string }
export function readMatrixConfig(env: NodeJS.ProcessEnv): MatrixConfig | null {
  return env.MATRIX_TOKEN ? { token: env.MATRIX_TOKEN } : null;
}
`,
  'parse.ts': `
import type { InboundResponse } from '../../src/adapter.ts';
export const handled = (): InboundResponse => ({ status: 200, body: {} });
`,
  'render.ts': `
import type { Card } from '../../src/render/card.ts';
import { stringify } from 'yaml';
export const renderMatrix = (card: Card): string => stringify({ title: card.title });
`,
  'index.ts': `
import type { MessageRef, PlatformAdapter } from '../../src/adapter.ts';
import type { MatrixConfig } from './config.ts';
import { handled } from './parse.ts';
import { renderMatrix } from './render.ts';
export type MatrixAdapterOptions = MatrixConfig;
export function createMatrixAdapter(_options: MatrixAdapterOptions): PlatformAdapter {
  const ref = (address: string): MessageRef => ({ platform: 'matrix', address, id: '1' });
  return {
    platform: 'matrix',
    routes: [{ method: 'POST', path: '/matrix/events', handle: async () => handled() }],
    start: async () => {},
    stop: async () => {},
    post: async (address, card) => (renderMatrix(card), ref(address)),
    update: async () => {},
    notify: async () => {},
  };
}
`,
  'platform.ts': `
import { type PlatformDefinition, webhookResponses } from '../../src/adapter-definition.ts';
import { MATRIX_ENV_VARS, type MatrixConfig, readMatrixConfig } from './config.ts';
export const platform: PlatformDefinition<MatrixConfig> = {
  envVars: MATRIX_ENV_VARS,
  readConfig: (env) => readMatrixConfig(env),
  create: async (config) => (await import('./index.ts')).createMatrixAdapter(config),
  exampleEnv: { MATRIX_TOKEN: 'matrix-token-for-the-registry-test' },
  routes: {
    'POST /matrix/events': {
      summary: 'Matrix events (made up)',
      responses: webhookResponses('Missing or bad token.'),
    },
  },
};
`,
};
const LINE = "  { name: 'matrix', sdk: ['yaml'], load: () => import('./matrix/platform.ts') },\n";

interface Violation {
  rule: { name: string };
  from: string;
}

describe('a sixth platform is one folder and one registry line', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hitl-sixth-'));
    for (const part of [
      'src',
      'platforms',
      'templates',
      'tsconfig.json',
      '.dependency-cruiser.cjs',
      'package.json',
    ])
      cpSync(join(repo, part), join(dir, part), { recursive: true });
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    mkdirSync(join(dir, 'platforms', 'matrix'));
    for (const [file, text] of Object.entries(MATRIX))
      writeFileSync(join(dir, 'platforms', 'matrix', file), text.trimStart());
    const registry = join(dir, 'platforms', 'registry.ts');
    const text = readFileSync(registry, 'utf8');
    const end = text.indexOf('\n];\n', text.indexOf('export const PLATFORMS'));
    writeFileSync(registry, `${text.slice(0, end + 1)}${LINE}${text.slice(end + 1)}`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const registry = () => import(join(dir, 'platforms', 'registry.ts')) as Promise<typeof Registry>;

  it('the registry lists it, and its folder has the shape', async () => {
    const { PLATFORMS } = await registry();
    expect(PLATFORMS.map((p) => p.name).sort()).toEqual(platformFolders(join(dir, 'platforms')));
    expect(PLATFORMS.map((p) => p.name)).toContain('matrix');
    expect(shapeProblems(join(dir, 'platforms'), 'matrix')).toEqual([]);
  });

  it('its SDK is its own: depcruise and the source scan refuse it anywhere else', async () => {
    const { PLATFORMS } = await registry();
    writeFileSync(join(dir, 'src', 'planted-matrix-sdk.ts'), "import 'yaml';\n");
    writeFileSync(join(dir, 'platforms', 'web', 'planted-matrix-sdk.ts'), "import 'yaml';\n");
    try {
      expect(sdkOffenders(dir, PLATFORMS).map((o) => o.slice(dir.length + 1))).toEqual([
        'src/planted-matrix-sdk.ts: yaml',
        'platforms/web/planted-matrix-sdk.ts: yaml',
      ]);
      const { stdout } = await run(
        join(repo, 'node_modules', '.bin', 'depcruise'),
        ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'src', 'platforms'],
        { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
      const found = (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary
        .violations;
      // The matrix folder itself is clean; only the planted imports break the rules.
      expect(found.map((v) => `${v.rule.name} ${v.from}`).sort()).toEqual(
        [
          'core-imports-no-platform-sdk src/planted-matrix-sdk.ts',
          'module-in-a-layer src/planted-matrix-sdk.ts',
          'only-matrix-imports-its-sdk platforms/web/planted-matrix-sdk.ts',
          'only-matrix-imports-its-sdk src/planted-matrix-sdk.ts',
        ].sort(),
      );
    } finally {
      rmSync(join(dir, 'src', 'planted-matrix-sdk.ts'));
      rmSync(join(dir, 'platforms', 'web', 'planted-matrix-sdk.ts'));
    }
  });

  it('the OpenAPI document describes its route, from its definition', async () => {
    const { everyPlatformEnv, loadAdapters, platformRouteDocs } = await registry();
    const { readConfig } = (await import(join(dir, 'src/config/config.ts'))) as typeof Config;
    const { openApiDocument } = (await import(
      join(dir, 'src/server/openapi.ts')
    )) as typeof OpenApi;
    const env = { DATA_DIR: dir, ...(await everyPlatformEnv()) };
    const config = readConfig(env);
    const adapters = await loadAdapters(env, config);
    expect(adapters.map((a) => a.platform)).toContain('matrix');
    const doc = openApiDocument({ config, adapters, routeDocs: await platformRouteDocs() }) as {
      paths: Record<string, Record<string, { tags: string[]; summary: string }>>;
    };
    expect(undocumentedRoutes(doc, adapters)).toEqual([]);
    expect(doc.paths['/matrix/events']?.post).toMatchObject({
      tags: ['platform: matrix'],
      summary: 'Matrix events (made up)',
    });
  });
});
