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

/** The arguments of `npm run check`'s depcruise step (the third test holds the script to them). */
const STEP_ARGS = ['--config', '.dependency-cruiser.cjs', 'src', 'platforms'];

/** depcruise in `dir` with `args`: what it printed and its exit code. */
const depcruiseIn = (dir: string, args: string[]) =>
  run(depcruise, args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => ({ stdout: r.stdout, exit: 0 }),
    (e: { stdout?: string; code?: number }) => ({ stdout: e.stdout ?? '', exit: e.code ?? 1 }),
  );

/** The check step's rules in `dir`, as JSON (which exits 0 whatever it finds). */
async function cruise(dir: string): Promise<Violation[]> {
  const { stdout } = await depcruiseIn(dir, [...STEP_ARGS, '--output-type', 'json']);
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
  // Each run loads the registry through tsx and takes seconds, so they run once each, in parallel:
  // the rules on both trees (JSON), and the step itself on the planted tree (its exit code). The
  // step passing on the real tree is the first test: the same rules, nothing found.
  let real: Violation[];
  let planted: Violation[];
  let plantedExit: number;
  beforeAll(async () => {
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
    [real, planted, plantedExit] = await Promise.all([
      cruise(repo),
      cruise(dir),
      depcruiseIn(dir, STEP_ARGS).then((r) => r.exit),
    ]);
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the real tree has no violation', () => {
    expect(real).toEqual([]);
  });

  it('catches every planted violation, whatever the import form', () => {
    const found = planted.map((v) => `${v.rule.name} ${v.from}`);
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
  });

  it("npm run check's depcruise step fails on the planted tree", () => {
    // The step exactly as package.json's check script runs it.
    const check = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Pkg).scripts
      .check;
    const step = check
      .split('&&')
      .map((x) => x.trim())
      .find((x) => x.startsWith('depcruise '));
    expect(step?.split(/\s+/)).toEqual(['depcruise', ...STEP_ARGS]);
    expect(plantedExit).not.toBe(0);
  });
});

interface Pkg {
  scripts: { check: string };
}
