/** Two relays on one store: a case's stream is held by one of them, and the other takes over when it goes. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import {
  answerOnReviewPage,
  cards,
  demoCall,
  startProxy,
  startWatchRelay,
  type TcpProxy,
  type WatchRelay,
} from './helpers.ts';

let demo: DemoHandle;
let proxy: TcpProxy;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-sse-lease-'));
const running: WatchRelay[] = [];
beforeAll(async () => {
  demo = await startDemo();
  proxy = await startProxy(Number(new URL(demo.url).port));
});
afterAll(async () => {
  for (const r of running) await r.stop().catch(() => {});
  await proxy.close();
  await demo.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('one stream per case across replicas; another replica takes it over', async () => {
  const a = await startWatchRelay({ dataDir });
  const b = await startWatchRelay({ dataDir });
  running.push(a, b);
  const response = await demoCall(
    `http://127.0.0.1:${proxy.port}/demo`,
    'POST',
    '/api/reviews?type=approval&inline=1',
    {},
  );
  const caseId = response.hitl.case_id;
  const events = () => proxy.requests(new RegExp(`GET \\S*/${caseId}/events`));
  const polls = () => proxy.requests(new RegExp(`GET \\S*/${caseId}/status`));
  const { id } = await a.send('web:lease', response);

  await eventually(async () => events().length === 1, 10_000, 'the first stream');
  // Both replicas keep polling the case (whoever leases it); neither opens a second stream.
  const seen = polls().length;
  await eventually(async () => polls().length >= seen + 4, 15_000, 'more polls');
  expect(events()).toHaveLength(1);

  // The holder goes away (its lease is given up); the other replica takes the stream over.
  await a.stop();
  running.splice(running.indexOf(a), 1);
  await eventually(async () => events().length === 2, 15_000, 'the stream taken over');
  await demo.act(caseId, { step: 'open' });
  await eventually(
    async () => (await cards(b, 'lease'))[0]?.status.includes('opened'),
    10_000,
    'opened',
  );
  await answerOnReviewPage(response.hitl, 'approve', {}, demo.url);
  await eventually(async () => (await cards(b, 'lease'))[0]?.final, 10_000, 'final');
  expect(events()).toHaveLength(2);
  expect((await b.get(id)).status).toBe('completed');
});
