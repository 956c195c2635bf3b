/**
 * Issue 22: rendering a card opens no sealed secret when the case says what the card needs (its
 * inline_submit flag, the Details link), and reads no earlier case for its round. A real relay with
 * the web chat and a fake HITL service; the sealer and the store are the real ones, counted.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { type CountedStore, countStore } from '../helpers/store-counter.ts';
import { tempDirs } from '../helpers/temp.ts';

const temp = tempDirs();

const service = await startFastService();
let relay: RelayHandle;
let counted: CountedStore;

beforeAll(async () => {
  const dir = temp.make('hitl-relay-card-render-');
  counted = countStore(openSqliteStore(join(dir, 'store.sqlite')));
  relay = await startRelay({
    adapters: [createWebAdapter()],
    store: counted.store,
    env: { POLL_INTERVAL_MIN_SECONDS: '3600', POLL_INTERVAL_MAX_SECONDS: '7200' },
  });
});
afterAll(async () => {
  await relay?.stop();
  await service.stop();
});

/** Renders the stored case `id`, counting the sealed secrets opened and the cases read meanwhile. */
async function render(id: string) {
  const s = relay.relay.services;
  const c = (await s.store.getCase(id))!;
  const open = s.sealer.open;
  let opened = 0;
  s.sealer.open = (sealed) => {
    opened++;
    return open(sealed);
  };
  counted.reset();
  try {
    const card = await s.render.cardOf(c);
    return { card, opened, reads: counted.calls.filter((x) => x.method === 'getCase').length };
  } finally {
    s.sealer.open = open;
  }
}

it('an open case with a submit token: buttons, round, Details link, and nothing opened or read', async () => {
  const first = await relay.send('web:render', service.create('render-1'));
  const next = service.create('render-2') as { hitl: Record<string, unknown> };
  next.hitl.previous_case_id = 'render-1';
  const second = await relay.send('web:render', next);
  expect(second.body.previous_id).toBe(first.body.id);

  const r = await render(second.body.id);
  expect(r.card.actions.map((a) => a.action)).toEqual(['approve', 'reject']);
  expect(r.card.title).toContain('2');
  expect(r.card.link?.url).toContain(`${relay.url}/r/`);
  expect(r.opened).toBe(0);
  expect(r.reads).toBe(0);
});

it('a case without a submit token shows no buttons, still without opening its secrets', async () => {
  const body = service.create('render-3') as { hitl: Record<string, unknown> };
  delete body.hitl.submit_token;
  delete body.hitl.submit_url;
  delete body.hitl.inline_actions;
  const sent = await relay.send('web:render', body);
  expect(sent.status).toBe(201);
  const r = await render(sent.body.id);
  expect(r.card.actions).toEqual([]);
  expect(r.opened).toBe(0);
});
