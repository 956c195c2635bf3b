/**
 * X-Forwarded-For and Forwarded are believed only from proxies named in TRUST_PROXY (issue 32
 * item 7): a forged header lifted the web chat's 4-waits-per-client bound (2,000 held long-polls).
 * Through the relay's real server, the web chat's long-polls from loopback.
 */
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { WEB_WAITS_PER_CLIENT } from '../../platforms/web/waits.ts';
import { readConfig } from '../../src/config/config.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** Opens a long-poll of an unchanged room with `headers`; its status once answered (or cut). */
async function waits(relay: RelayHandle, headers: Array<Record<string, string>>) {
  const first = await request(`${relay.url}/web/api/rooms/proxied/messages`);
  await first.body.text();
  const etag = String(first.headers.etag);
  const cut = new AbortController();
  cleanup.push(async () => cut.abort());
  const statuses: Array<number | 'waiting'> = headers.map(() => 'waiting');
  headers.forEach((h, i) => {
    request(`${relay.url}/web/api/rooms/proxied/messages?wait=30`, {
      headers: { 'if-none-match': etag, ...h },
      signal: cut.signal,
    })
      .then(async (r) => {
        statuses[i] = r.statusCode;
        await r.body.text();
      })
      .catch(() => {});
  });
  return statuses;
}

async function settle(statuses: Array<number | 'waiting'>, refused: number) {
  const t0 = Date.now();
  while (statuses.filter((s) => s === 429).length < refused && Date.now() - t0 < 5000)
    await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200)); // the admitted ones are waiting, not answered
}

const forged = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ 'x-forwarded-for': `198.51.100.${i + 1}` }));

it('TRUST-PROXY-1: without TRUST_PROXY a forged X-Forwarded-For buys no more waits', async () => {
  const relay = await startRelay({ adapters: [createWebAdapter()] });
  cleanup.push(() => relay.stop());
  const statuses = await waits(relay, forged(WEB_WAITS_PER_CLIENT + 2));
  await settle(statuses, 2);
  expect(statuses.filter((s) => s === 'waiting')).toHaveLength(WEB_WAITS_PER_CLIENT);
  expect(statuses.filter((s) => s === 429)).toHaveLength(2);
});

it('TRUST-PROXY-2: behind a proxy named in TRUST_PROXY each forwarded client has its own waits', async () => {
  const relay = await startRelay({
    adapters: [createWebAdapter()],
    env: { TRUST_PROXY: '127.0.0.0/8, ::1' },
  });
  cleanup.push(() => relay.stop());
  const one = { 'x-forwarded-for': '203.0.113.9, 127.0.0.1' }; // a client, then a trusted hop
  const headers = [
    ...Array.from({ length: WEB_WAITS_PER_CLIENT + 1 }, () => one),
    ...forged(3),
    { forwarded: 'for="[2001:db8::7]:4711";proto=https' },
  ];
  const statuses = await waits(relay, headers);
  await settle(statuses, 1);
  // The one client is bounded; the others (X-Forwarded-For and RFC 7239 Forwarded) are not it.
  expect(statuses.slice(0, WEB_WAITS_PER_CLIENT + 1).filter((s) => s === 429)).toHaveLength(1);
  expect(statuses.slice(WEB_WAITS_PER_CLIENT + 1)).toEqual([
    'waiting',
    'waiting',
    'waiting',
    'waiting',
  ]);
});

it('TRUST-PROXY-3: a TRUST_PROXY entry that is not an address or CIDR is refused, naming it', () => {
  expect(() => readConfig({ TRUST_PROXY: '10.0.0.0/8, proxy.internal' })).toThrow(
    expect.objectContaining({
      details: [
        expect.objectContaining({
          path: 'TRUST_PROXY',
          message: expect.stringContaining('"proxy.internal"'),
        }),
      ],
    }),
  );
});
