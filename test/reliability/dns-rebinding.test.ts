/**
 * Finding 10 (smaller): the local default (no API key, loopback only) accepted any Host header, so
 * a web page could reach it through a name resolving to 127.0.0.1 (DNS rebinding) and read cases
 * or tap. Now only loopback names, loopback addresses and PUBLIC_URL's host are served.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let local: RelayHandle;
let server: RelayHandle;
beforeAll(async () => {
  local = await startRelay({ adapters: [createWebAdapter()] });
  server = await startRelay({
    adapters: [createWebAdapter()],
    env: { RELAY_API_KEY: 'server-api-key-0123456789abcdef', HOST: '127.0.0.1' },
  });
});
afterAll(async () => {
  await local?.stop();
  await server?.stop();
});

async function status(base: string, path: string, host: string): Promise<number> {
  const res = await request(`${base}${path}`, { headers: { host } });
  await res.body.dump();
  return res.statusCode;
}

it('finding 10 (DNS rebinding): the local default answers only to loopback Host names', async () => {
  const port = new URL(local.url).port;
  for (const host of ['evil.example', `rebind.attacker.example:${port}`, '192.168.1.20'])
    expect(await status(local.url, '/v1/cases', host), host).toBe(403);
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost', `[::1]:${port}`])
    expect(await status(local.url, '/v1/cases', host), host).toBe(200);
  const res = await request(`${local.url}/web/api/rooms/lobby/messages`, {
    headers: { host: 'evil.example' },
  });
  expect(res.statusCode).toBe(403);
  expect(((await res.body.json()) as { error: string }).error).toBe('forbidden_host');
});

it('finding 10 (DNS rebinding): with an API key the Host header is not restricted (the key is)', async () => {
  expect(await status(server.url, '/healthz', 'relay.example.org')).toBe(200);
});
