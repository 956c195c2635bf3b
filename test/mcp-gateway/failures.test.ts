/**
 * Upstream failures are loud: an HTTP upstream nobody listens on and a stdio child that exits at
 * once each give the downstream client a clear MCP error naming the upstream and the reason, a
 * `down` part on /readyz with that reason, and a log line; no header or env secret in any of them.
 */
import { createServer } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const HEADER_SECRET = 'hdr-secret-0123456789abcdef';
const ENV_SECRET = 'env-secret-0123456789abcdef';
let relay: RelayHandle;

/** A loopback port nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const port = await closedPort();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: {
        gone: {
          url: `http://127.0.0.1:${port}/mcp`,
          headers: { 'x-api-key': HEADER_SECRET },
          protocol: 'legacy',
        },
        dies: {
          command: process.execPath,
          args: ['-e', 'console.error("boom: no licence"); process.exit(3)'],
          env: { TOKEN: ENV_SECRET },
          protocol: 'legacy',
        },
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
});

async function readiness() {
  const res = await request(`${relay.url}/readyz`);
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

const REASONS = {
  gone: /^upstream MCP server "gone" is not available: unreachable: .*(ECONNREFUSED|fetch failed)/,
  dies: /^upstream MCP server "dies" is not available: the process ended or failed: .*\(stderr: boom: no licence\)/,
};

describe.each<[Era, keyof typeof REASONS]>([
  ['modern', 'gone'],
  ['legacy', 'gone'],
  ['modern', 'dies'],
  ['legacy', 'dies'],
])('%s client, upstream %s', (era, name) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp/gateway/${name}`, { era });
  });
  afterAll(async () => {
    await client?.close();
  });

  it('answers each request with an MCP error naming the upstream and the reason', async () => {
    const err = await client.listTools().catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message.replace(/^MCP error -?\d+: /, '');
    expect(message).toMatch(REASONS[name]);
    const call = await client.callTool({ name: 'x', arguments: {} }).catch((e: Error) => e);
    expect((call as Error).message).toContain(`upstream MCP server "${name}" is not available`);
    expect(`${message} ${(call as Error).message}`).not.toMatch(
      new RegExp(`${HEADER_SECRET}|${ENV_SECRET}`),
    );
  });
});

it('shows each failed upstream as a down part of /readyz with its reason, and logs it', async () => {
  const r = await eventually(async () => {
    const got = await readiness();
    const parts = got.body.parts;
    return parts['mcp-upstream:gone']?.state === 'down' &&
      parts['mcp-upstream:dies']?.state === 'down'
      ? got
      : undefined;
  });
  expect(r.status).toBe(503);
  expect(r.body.parts['mcp-upstream:gone'].reason).toMatch(/^unreachable: /);
  expect(r.body.parts['mcp-upstream:dies'].reason).toContain('(stderr: boom: no licence)');
  const lines = logLines.filter((l) => l.includes('mcp gateway: upstream down'));
  expect(lines.some((l) => l.includes('"upstream":"gone"'))).toBe(true);
  expect(lines.some((l) => l.includes('"upstream":"dies"') && l.includes('boom'))).toBe(true);
  const all = `${logLines.join('\n')}${JSON.stringify(r.body)}`;
  expect(all).not.toContain(HEADER_SECRET);
  expect(all).not.toContain(ENV_SECRET);
});
