/**
 * A claim left behind by a replica that died mid-submit is a submit whose outcome is unknown. Only a
 * poll that reads the case still open may free it: while polls fail, the watcher keeps the claim
 * and a new tap answers "busy" without submitting; once a poll reads the case open, a tap submits,
 * once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

let demo: DemoHandle;
let relay: RelayHandle;
let proxy: Server;
let proxyUrl: string;
/** While true, the service's status endpoint (polls) answers 503; submits still pass. */
let pollsDown = false;
let polls = 0;

beforeAll(async () => {
  demo = await startDemo();
  const origin = new URL(demo.url).origin;
  // The service as the relay sees it: the demo behind a pass-through whose polls can fail.
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url?.endsWith('/status')) {
      polls++;
      if (pollsDown) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        return void res.end('{"error":"unavailable"}');
      }
    }
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'accept', 'if-none-match'])
      if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
    const up = await request(`${origin}${req.url}`, {
      method: req.method as 'GET' | 'POST',
      headers,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    const out: Record<string, string> = {};
    for (const h of ['content-type', 'etag', 'retry-after'])
      if (typeof up.headers[h] === 'string') out[h] = up.headers[h];
    res.writeHead(up.statusCode, out);
    res.end(Buffer.from(await up.body.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await demo?.stop();
});

async function tap(room: string, messageId: string): Promise<string> {
  const res = await request(
    `${relay.url}/web/api/rooms/${room}/messages/${messageId}/actions/approve`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
    },
  );
  return ((await res.body.json()) as { outcome: string }).outcome;
}

it('keeps a dead replica’s expired claim while polls fail, and submits once after a poll reads the case open', async () => {
  const body = await demo.create('approval', true);
  const wrapped = JSON.parse(JSON.stringify(body).replaceAll(new URL(demo.url).origin, proxyUrl));
  const sent = await relay.send('web:claims', wrapped);
  expect(sent.status).toBe(201);
  const id: string = sent.body.id;
  const store = relay.relay.services.store;
  // What a replica killed mid-submit leaves: a claim, now expired, whose submit nobody heard back.
  expect(await store.claimCase(id, 'gone-replica:x', Date.now() - 1)).toBe(true);

  pollsDown = true;
  const before = polls;
  await eventually(async () => polls >= before + 2, 10_000, 'two failed polls');
  expect((await store.getCase(id))?.claim?.holder).toBe('gone-replica:x');
  const [message] = (await (
    await request(`${relay.url}/web/api/rooms/claims/messages`)
  ).body.json()) as Array<{ id: string }>;
  expect(await tap('claims', message!.id)).toBe('busy');
  expect((await store.getCase(id))?.claim?.holder).toBe('gone-replica:x');
  expect(await demo.submissions()).toEqual([]);

  pollsDown = false;
  await eventually(
    async () => (await tap('claims', message!.id)) === 'submitted',
    10_000,
    'a tap after a good poll',
  );
  const posts = (await demo.submissions()).filter((s) => s.case_id === body.hitl.case_id);
  expect(posts).toHaveLength(1);
  expect((await relay.get(id)).status).toBe('completed');
});
