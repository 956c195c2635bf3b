/**
 * The MCP Inspector CLI (@modelcontextprotocol/inspector-cli, pinned) against a started relay's
 * /mcp, run as docs/mcp.md documents it: it lists the tools, and it calls one (ask_confirm) that a
 * person answers in the web chat while the CLI waits, printing the typed answer.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALL_KINDS } from '../../src/asks/content.ts';
import { toolOf } from '../../src/mcp/kinds.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

/**
 * 1.0.3 tests `../package.json` against the working directory but imports it relative to its own
 * build folder: it runs from a folder whose parent holds a package.json (docs/ of this clone, as
 * docs/mcp.md says), else it stops with "Cannot find module .../@modelcontextprotocol/package.json".
 */
const CWD = fileURLToPath(new URL('../../docs', import.meta.url));
const CLI = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/inspector-cli/build/cli.js', import.meta.url),
);

let relay: RelayHandle;
beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
});

/** `mcp-inspector-cli --cli <relay>/mcp ...args`, bounded; its stdout is the JSON result. */
function inspector(args: string[]): {
  child: ChildProcess;
  done: Promise<{ code: number; stdout: string; stderr: string }>;
} {
  let child!: ChildProcess;
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    child = execFile(
      process.execPath,
      [CLI, '--cli', `${relay.url}/mcp`, '--transport', 'http', ...args],
      { cwd: CWD, timeout: 40_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
        }),
    );
  });
  return { child, done };
}

describe('MCP Inspector CLI against /mcp', () => {
  it('lists the ten ask tools and get_answer', async () => {
    const run = await inspector(['--method', 'tools/list']).done;
    expect(run.code, run.stderr).toBe(0);
    const names = (JSON.parse(run.stdout).tools as Array<{ name: string }>).map((t) => t.name);
    expect(names.sort()).toEqual([...ALL_KINDS.map((k) => toolOf(k).name), 'get_answer'].sort());
  });

  it('calls ask_confirm; the person confirms in the web chat; it prints the typed answer', async () => {
    const room = 'inspector-confirm';
    const run = inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'ask_confirm',
      '--tool-arg',
      'prompt=Confirm the deploy window is 18:00 UTC.',
      `target=web:${room}`,
    ]);
    const card = await eventually(
      async () => {
        const res = await request(`${relay.url}/web/api/rooms/${room}/messages`);
        const list = (await res.body.json()) as any[];
        return list.find((m) => m.case && !m.final);
      },
      20_000,
      `a card in ${room}`,
    );
    const tap = await request(
      `${relay.url}/web/api/rooms/${room}/messages/${card.id}/actions/confirm`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: { id: 'ann', name: 'Ann' }, data: { confirmed: true } }),
      },
    );
    expect(tap.statusCode).toBe(200);
    const out = await run.done;
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({
      kind: 'context.confirm',
      status: 'completed',
      answer: { confirmed: true },
      answered_by: { name: 'Ann' },
      target: `web:${room}`,
    });
  }, 45_000);
});
