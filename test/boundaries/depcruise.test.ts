/**
 * `npm run check` runs dependency-cruiser with .dependency-cruiser.cjs. These tests plant each kind
 * of violation in a temporary copy of the tree and check that the rules catch it (and that the
 * real tree is clean), so a rule that silently stops matching fails here.
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
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..', '..');
const depcruise = join(repo, 'node_modules', '.bin', 'depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function cruise(dir: string): Promise<Violation[]> {
  const { stdout } = await run(
    depcruise,
    ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'src', 'platforms'],
    { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
  ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const plants: Record<string, string> = {
  'src/planted/static-sdk.ts': "import 'grammy';\n",
  'src/planted/type-sdk.ts':
    "import type { APIUser } from 'discord-api-types/v10';\nexport type U = APIUser;\n",
  'src/planted/azure.ts': "import '@azure/msal-node';\n",
  'src/planted/dynamic-sdk.ts':
    "export const load = () => import(/* a comment does not hide it */ '@slack/bolt');\n",
  'src/planted/create-require.ts':
    "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nexport const b = require('botbuilder');\n",
  'src/planted/create-require-renamed.ts':
    "import { createRequire } from 'node:module';\nconst load = createRequire(import.meta.url);\nexport const g = load('grammy');\n",
  'src/planted/reaches-platform.ts': "import '../../platforms/telegram/render.ts';\n",
  'src/planted/cycle-a.ts': "import { b } from './cycle-b.ts';\nexport const a = () => b;\n",
  'src/planted/cycle-b.ts':
    "import type { a } from './cycle-a.ts';\nexport const b = 1 as unknown as typeof a;\n",
  'platforms/slack/planted-cross.ts': "import '../telegram/render.ts';\n",
  'platforms/slack/planted-core.ts': "import '../../src/services.ts';\n",
  'platforms/slack/planted-other-sdk.ts': "import 'grammy';\n",
  // Layers: an upward import, a type-only one, one between siblings, the client reaching out, the
  // product reaching the demo.
  'src/protocol/planted-upward.ts': "import '../server/app.ts';\n",
  'src/store/planted-type-upward.ts':
    "import type { Services } from '../services.ts';\nexport type S = Services;\n",
  'src/tap/planted-sibling.ts': "import '../watch/watcher.ts';\n",
  'src/client/planted-reach.ts': "import '../store/store.ts';\n",
  'src/server/planted-demo.ts': "import '../demo/index.ts';\n",
};

describe('dependency rules (npm run check)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hitl-depcruise-'));
    for (const part of [
      'src',
      'platforms',
      'tsconfig.json',
      '.dependency-cruiser.cjs',
      'package.json',
    ])
      cpSync(join(repo, part), join(dir, part), { recursive: true });
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    for (const [file, text] of Object.entries(plants)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the real tree has no violation', async () => {
    expect(await cruise(repo)).toEqual([]);
  }, 120_000);

  it('catches every planted violation, whatever the import form', async () => {
    const found = (await cruise(dir)).map((v) => `${v.rule.name} ${v.from}`);
    const expected = [
      'core-imports-no-platform-sdk src/planted/static-sdk.ts',
      'core-imports-no-platform-sdk src/planted/type-sdk.ts',
      'core-imports-no-platform-sdk src/planted/azure.ts',
      'core-imports-no-platform-sdk src/planted/dynamic-sdk.ts',
      'core-imports-no-platform-sdk src/planted/create-require.ts',
      'no-create-require src/planted/create-require-renamed.ts',
      'core-imports-no-platform src/planted/reaches-platform.ts',
      'no-cross-platform-import platforms/slack/planted-cross.ts',
      'platform-uses-only-the-adapter-surface platforms/slack/planted-core.ts',
      'only-telegram-imports-its-sdk platforms/slack/planted-other-sdk.ts',
      'layer-protocol src/protocol/planted-upward.ts',
      'layer-store src/store/planted-type-upward.ts',
      'layer-tap src/tap/planted-sibling.ts',
      'layer-client src/client/planted-reach.ts',
      'client-imports-only-protocol-and-ask-model src/client/planted-reach.ts',
      'product-needs-no-demo src/server/planted-demo.ts',
      'module-in-a-layer src/planted/static-sdk.ts',
    ];
    for (const e of expected) expect(found).toContain(e);
    expect(found.some((f) => f.startsWith('no-circular src/planted/cycle-'))).toBe(true);
    // Nothing outside the planted files is reported.
    expect(found.filter((f) => !f.includes('planted'))).toEqual([]);
  }, 120_000);

  it("npm run check's depcruise step fails on the planted tree and passes on the real one", async () => {
    // The step exactly as package.json's check script runs it.
    const check = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Pkg).scripts
      .check;
    const step = check
      .split('&&')
      .map((x) => x.trim())
      .find((x) => x.startsWith('depcruise '));
    expect(step).toBeDefined();
    const [bin, ...args] = step!.split(/\s+/);
    const exit = (cwd: string) =>
      run(join(repo, 'node_modules', '.bin', bin!), args, {
        cwd,
        maxBuffer: 64 * 1024 * 1024,
      }).then(
        () => 0,
        (e: { code?: number }) => e.code ?? 1,
      );
    expect(await exit(dir)).not.toBe(0);
    expect(await exit(repo)).toBe(0);
    // Two runs of the CLI, each loading the registry through tsx: allow for a busy machine.
  }, 180_000);
});

interface Pkg {
  scripts: { check: string };
}
