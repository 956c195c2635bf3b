/**
 * Every code block in README.md and docs/ does what it says: TypeScript blocks type-check against
 * what the reader installed, shell blocks run against a started relay (with the demo service, a
 * person tapping in the web chat), JSON blocks parse and `RELAY_CONFIG` files load. A block that
 * cannot run here says why in an HTML comment on the line before it: `<!-- not run: reason -->`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { mountDemo } from '../../src/demo/mount.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

interface Block {
  file: string;
  line: number;
  lang: string;
  attrs: string[];
  text: string;
  notRun?: string;
}

const ROOT = resolve('.');
const DOCS = ['README.md', ...readdirSync('docs', { recursive: true })]
  .map(String)
  .filter((f) => f.endsWith('.md'))
  .map((f) => (f === 'README.md' ? f : join('docs', f)));

function blocksOf(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const [lang = '', ...attrs] = open[2]!.trim().split(/\s+/);
    const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    const text = lines
      .slice(i + 1, end)
      .map((l) => l.slice(indent))
      .join('\n');
    const notRun = /<!-- not run: (.+?) -->/.exec(lines[i - 1] ?? '')?.[1];
    out.push({ file, line: i + 1, lang, attrs, text, notRun });
    i = end;
  }
  return out;
}

const BLOCKS = DOCS.flatMap(blocksOf);
const where = (b: Block) => `${b.file}:${b.line}`;
/** Kinds a test can check; `text` is a picture or a listing, with nothing to run. */
const KINDS = ['ts', 'sh', 'json', 'text'];

it('every block names its kind, and every block a test cannot check says why not', () => {
  expect(BLOCKS.length).toBeGreaterThan(25);
  const unchecked = BLOCKS.filter((b) => !KINDS.includes(b.lang) && !b.notRun);
  expect(unchecked.map((b) => `${where(b)} \`\`\`${b.lang}`)).toEqual([]);
  // A picture is not code: marking it would hide a block that lost its kind.
  expect(BLOCKS.filter((b) => b.lang === 'text' && b.notRun).map(where)).toEqual([]);
});

describe('JSON blocks', () => {
  const json = BLOCKS.filter((b) => b.lang === 'json' && !b.notRun);
  it.each(json.map((b) => [where(b), b] as const))('%s parses', (_, b) => {
    expect(() => JSON.parse(b.text)).not.toThrow();
  });
  const configs = json.filter((b) => b.attrs.includes('relay-config'));
  it('the RELAY_CONFIG files load as the relay loads them', () => {
    expect(configs.length).toBeGreaterThanOrEqual(5);
    const dir = mkdtempSync(join(tmpdir(), 'hitl-doc-config-'));
    try {
      for (const b of configs) {
        const file = join(dir, 'relay-config.json');
        writeFileSync(file, b.text);
        expect(() => readConfig({ DATA_DIR: dir, RELAY_CONFIG: file }), where(b)).not.toThrow();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * What a reader has installed: an agent that followed docs/client.md has `@hitl-relay/client`
 * only; code that embeds the relay (it imports `hitl-relay` itself) has the whole relay package.
 */
const AGENT_PATHS = { '@hitl-relay/client': ['src/client/index.ts'] };
const EMBED_PATHS = {
  'hitl-relay': ['src/index.ts'],
  'hitl-relay/client': ['src/client/index.ts'],
  'hitl-relay/platforms/*': ['platforms/*/index.ts'],
};

function typeErrors(blocks: Block[], paths: Record<string, string[]>, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((b, i) => {
    const file = join(dir, `block-${i}.ts`);
    writeFileSync(file, `${b.text}\nexport {};\n`);
    return file;
  });
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    types: ['node'],
    baseUrl: ROOT,
    paths,
  });
  // Only the blocks' own diagnostics: checking the whole relay again is the job of tsc.
  return files
    .map((f) => program.getSourceFile(f)!)
    .flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)])
    .map((d) => {
      const b = blocks[files.indexOf(d.file!.fileName)]!;
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${b.file}:${b.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

it('TypeScript blocks type-check against the package the reader installed', () => {
  const code = BLOCKS.filter((b) => b.lang === 'ts' && !b.notRun);
  expect(code.length).toBeGreaterThanOrEqual(6);
  const embeds = (b: Block) => /from '(hitl-relay|hitl-relay\/platforms\/[^']+)'/.test(b.text);
  // Inside the repository, so node_modules (undici, zod, @types/node) resolve as for the reader.
  const dir = join(ROOT, 'test-results', 'code-blocks');
  rmSync(dir, { recursive: true, force: true });
  const errors = [
    ...typeErrors(
      code.filter((b) => !embeds(b)),
      AGENT_PATHS,
      join(dir),
    ),
    ...typeErrors(code.filter(embeds), { ...AGENT_PATHS, ...EMBED_PATHS }, join(dir, 'embed')),
  ];
  expect(errors).toEqual([]);
}, 120_000);

describe('shell blocks, against a started relay', () => {
  let relay: RelayHandle;
  let work: string;
  let person: { stop: () => Promise<number> };
  beforeAll(async () => {
    relay = await startRelay({
      adapters: [createWebAdapter()],
      mount: (app, log, dataDir) => mountDemo(app, { dataDir, log }),
    });
    work = mkdtempSync(join(tmpdir(), 'hitl-doc-sh-'));
    person = tapper(relay.url, 'lobby');
  });
  afterAll(async () => {
    await person?.stop();
    await relay?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const shell = BLOCKS.filter((b) => b.lang === 'sh' && !b.notRun);
  it('there are blocks to run', () => expect(shell.length).toBeGreaterThanOrEqual(4));
  it.each(shell.map((b) => [where(b), b] as const))(
    '%s runs and exits 0',
    async (_, b) => {
      const host = new URL(relay.url).host;
      // The docs' relay is the default one on port 8787; `npx hitl-relay` is the clone's bin.
      const script = b.text
        .replace(/(127\.0\.0\.1|localhost):8787/g, host)
        .replace(/npx hitl-relay/g, `node ${join(ROOT, 'bin/hitl-relay.js')}`);
      const run = await runBash(script, work, { RELAY_URL: relay.url });
      expect(run, where(b)).toMatchObject({ code: 0 });
    },
    90_000,
  );
});

function runBash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { cwd, env: { ...process.env, ...env }, timeout: 80_000 },
      (err, stdout, stderr) =>
        done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The person in the web chat: taps Approve or Confirm on every open card of `room` (Confirm twice,
 * as the web chat asks), until stopped. Returns how many taps it made.
 */
function tapper(url: string, room: string): { stop: () => Promise<number> } {
  let running = true;
  let taps = 0;
  const loop = (async () => {
    while (running) {
      const res = await request(`${url}/web/api/rooms/${room}/messages`);
      const messages = (await res.body.json()) as any[];
      for (const m of messages.filter((x) => !x.final)) {
        const action = m.actions.find((a: any) => ['approve', 'confirm'].includes(a.action));
        if (!action) continue;
        const tap = await request(
          `${url}/web/api/rooms/${room}/messages/${m.id}/actions/${action.action}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
          },
        );
        await tap.body.dump();
        taps++;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return taps;
    },
  };
}
