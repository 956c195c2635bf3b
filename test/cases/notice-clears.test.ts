/**
 * Issue 36: a failed-submit notice ("Could not reach the service …; use Details") leaves the card
 * once the person opened Details (the service reports `opened` or `in_progress`), not only when
 * the case ends. A real relay with the web chat and a fake HITL service.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const service = await startFastService();
let relay: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: { POLL_INTERVAL_MIN_SECONDS: '3600', POLL_INTERVAL_MAX_SECONDS: '7200' },
  });
});
afterAll(async () => {
  await relay?.stop();
  await service.stop();
});

it.each(['opened', 'in_progress'] as const)('the notice clears when the case is %s', async (to) => {
  const s = relay.relay.services;
  const sent = await relay.send('web:notice', service.create(`notice-${to}`));
  const id = sent.body.id as string;
  const notice = 'Could not reach the service; nothing was decided. Try again or use Details.';
  await s.cases.mutate(id, (c) => {
    c.doc.notice = notice;
    return true;
  });
  const before = await s.render.cardOf((await s.store.getCase(id))!);
  expect(before.status).toContain(notice);
  const stored = (await s.store.getCase(id))!;
  await s.status.apply(id, { case_id: stored.case_id, status: to }, 'test');
  const after = (await s.store.getCase(id))!;
  expect(after.status).toBe(to);
  expect(after.doc.notice).toBeUndefined();
  expect((await s.render.cardOf(after)).status).not.toContain(notice);
});
