/**
 * createRelay embedded in this process (the package entry), with the web chat, the demo service
 * mounted on the same server, and the client: one process, no separate relay.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { createHitlFetch, RelayClient } from '../../src/client/index.ts';
import { mountDemo } from '../../src/demo/mount.ts';
import { createLogger, createRelay, type Relay, readConfig } from '../../src/index.ts';
import { tapWhenPosted } from './helpers.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-embed-'));
let relay: Relay;

beforeAll(async () => {
  const log = createLogger({ level: 'silent' });
  relay = createRelay({
    config: readConfig({ PORT: '0', DATA_DIR: dataDir, POLL_INTERVAL_MIN_SECONDS: '0.2' }),
    adapters: [createWebAdapter()],
    log,
    mount: (app) => mountDemo(app, { dataDir, log }),
  });
  await relay.start();
});
afterAll(async () => {
  await relay?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('runs the whole loop in one process: agent, relay, web chat, demo service', async () => {
  const hitlFetch = createHitlFetch({ relayUrl: relay.url, target: 'web:embedded' });
  const agent = hitlFetch(`${relay.url}/demo/api/reviews?type=approval&inline=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect((await tapWhenPosted(relay.url, 'embedded', 'approve')).outcome).toBe('submitted');
  const res = await agent;
  expect(res.hitl).toMatchObject({
    final: true,
    result: { action: 'approve' },
    submitted_by: { platform_user_id: 'ann' },
    approval: { approved: true },
  });
  // The embedder can also reach its relay without the network, through the app itself.
  const local = new RelayClient({
    relayUrl: 'http://embedded.local',
    fetch: (input, init) => Promise.resolve(relay.app.fetch(new Request(input, init))),
  });
  const c = await local.get(res.hitl!.relay_case_id);
  expect(c).toMatchObject({ status: 'completed', target: 'web:embedded' });
  expect(relay.services.config.dataDir).toBe(dataDir);
});
