/**
 * The official `@modelcontextprotocol/server-everything` as a real stdio upstream: the relay spawns
 * it, and the official SDK client reaches it through the gateway, over Streamable HTTP at
 * /mcp/gateway/everything and over stdio through `hitl-relay mcp --gateway everything`. Its tools,
 * progress, resources (pages) and prompts pass unchanged.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
let relay: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], protocol: 'legacy' },
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
});

/** What every way in must show of the everything server. */
async function exercise(client: Client) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
  expect(tools.find((t) => t.name === 'get-sum')?.annotations).toMatchObject({
    readOnlyHint: true,
  });
  const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
  expect(JSON.stringify(sum.content)).toContain('5');
  const echo = await client.callTool({
    name: 'echo',
    arguments: { message: 'through the gateway' },
  });
  expect(echo.content).toEqual([{ type: 'text', text: 'Echo: through the gateway' }]);
  const progress: number[] = [];
  await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
    { onprogress: (p) => void progress.push(p.progress) },
  );
  // The server sends its last progress right before its result; the official client drops it even
  // when connected straight to the server (measured: [1] of 2 steps), so the last step is not asked.
  expect(progress.slice(0, 2)).toEqual([1, 2]);
  const { prompts } = await client.listPrompts();
  expect(prompts.map((p) => p.name)).toContain('simple-prompt');
  const prompt = await client.getPrompt({ name: 'simple-prompt' });
  expect(prompt.messages.length).toBeGreaterThan(0);
}

describe('server-everything behind the gateway', () => {
  it('over Streamable HTTP, with a 2026-07-28 client', { timeout: 30_000 }, async () => {
    const client = await connectMcp(`${relay.url}/mcp/gateway/everything`);
    expect(client.getServerVersion()?.name).toContain('everything');
    await exercise(client);
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0] as { uri: string };
    const read = await client.readResource({ uri: first.uri });
    expect(read.contents[0]?.uri).toBe(first.uri);
    await client.close();
  });

  it('over stdio, through hitl-relay mcp --gateway everything', { timeout: 30_000 }, async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [resolve('bin/hitl-relay.js'), 'mcp', '--relay', relay.url, '--gateway', 'everything'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await client.connect(transport);
    await exercise(client);
    await client.close();
  });
});
