/**
 * Finding 5 (one slow service starves the others): 300 cases whose poll_url hangs delayed another
 * service's completion from 1.4 s to ~48 s, because a pass leased up to 500 cases and waited for
 * all of them. Now each poll holds only its own slot, capped per origin, and the pass never waits.
 * Also (finding 10): a clock stepped back no longer stops polling until it catches up.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay } from '../../src/relay.ts';
import { type DemoHandle, startDemo } from '../helpers/relay-env.ts';
import { type HostileService, startHostileService } from '../reliability/hostile-service.ts';
import { answerOnReviewPage, startWatchRelay, type WatchRelay } from './helpers.ts';

let demo: DemoHandle;
let svc: HostileService;
const hanging: ServerResponse[] = [];
beforeAll(async () => {
  demo = await startDemo();
  svc = await startHostileService();
  // Every poll of the hostile service hangs (it never answers).
  svc.handle((req, res) => {
    if (!req.url?.includes('/status')) return false;
    hanging.push(res);
    return true;
  });
});
afterAll(async () => {
  for (const r of hanging) r.destroy();
  await svc?.close();
  await demo?.stop();
});

it('finding 5 (slow service starves others): 150 hanging polls do not delay another service', async () => {
  const relay: WatchRelay = await startWatchRelay();
  try {
    for (let i = 0; i < 150; i++) {
      const r = await relay.send('web:hang', svc.body202());
      expect(r.id).toBeDefined();
    }
    // Let the hanging polls take their slots.
    const start = Date.now();
    while (hanging.length < 16 && Date.now() - start < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    const response = await demo.create('approval', false);
    delete response.hitl.events_url; // polling alone, so the poll schedule is what is measured
    const sent = await relay.send('web:other', response);
    await answerOnReviewPage(response.hitl, 'approve', {}, demo.url);
    const t0 = Date.now();
    let c = await relay.get(sent.id);
    while (c.status !== 'completed' && Date.now() - t0 < 8_000) {
      await new Promise((r) => setTimeout(r, 50));
      c = await relay.get(sent.id);
    }
    const took = Date.now() - t0;
    console.log(`another service's case completed ${took} ms after the answer`);
    expect(c.status).toBe('completed');
    // Per-origin cap: the hanging service holds at most 16 polls at once.
    expect(hanging.filter((r) => !r.destroyed && !r.writableEnded).length).toBeLessThanOrEqual(16);
  } finally {
    for (const r of hanging) r.destroy();
    await relay.stop();
  }
}, 60_000);

it('finding 10 (clock stepped back): polling goes on when the clock steps back 10 minutes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-clock-'));
  writeFileSync(join(dir, 'relay-config.json'), '{}');
  let offset = 0;
  const now = () => Date.now() + offset;
  const relay = createRelay({
    config: readConfig({
      PORT: '0',
      DATA_DIR: dir,
      RELAY_CONFIG: join(dir, 'relay-config.json'),
      DEMO: '0',
      POLL_INTERVAL_MIN_SECONDS: '0.2',
      POLL_INTERVAL_MAX_SECONDS: '1',
    }),
    adapters: [createWebAdapter()],
    log: createLogger({ level: 'silent' }),
    now,
  });
  await relay.start();
  try {
    const response = await demo.create('approval', false);
    delete response.hitl.events_url; // polling alone
    const res = await fetch(`${relay.url}/v1/cases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'web:clock', response }),
    });
    const { id } = (await res.json()) as { id: string };
    await new Promise((r) => setTimeout(r, 500)); // a few polls on the original clock
    offset = -10 * 60_000;
    await answerOnReviewPage(response.hitl, 'approve', {}, demo.url);
    const t0 = Date.now();
    let status = '';
    while (status !== 'completed' && Date.now() - t0 < 8_000) {
      await new Promise((r) => setTimeout(r, 50));
      status = ((await (await fetch(`${relay.url}/v1/cases/${id}`)).json()) as { status: string })
        .status;
    }
    expect(status).toBe('completed');
  } finally {
    await relay.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
