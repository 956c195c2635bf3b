/**
 * An approval ask that expires unanswered: /v1/asks and the client say "not approved" and why, in
 * the same words createHitlFetch uses for an expired case; a decision ask has no approval view.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { RelayClient } from '../../src/client/index.ts';
import { approvalOf } from '../../src/client/outcome.ts';
import { KINDS } from '../asks/fixtures.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(() => relay?.stop());

async function expiredAsk(kind: keyof typeof KINDS) {
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: 'web:expiry', content: KINDS[kind].content, expires_in: 1 }),
  });
  const created = (await res.body.json()) as any;
  expect(res.statusCode).toBe(202);
  const wait = await request(`${relay.url}/v1/asks/${created.relay.id}/wait?timeout=30`);
  return (await wait.body.json()) as any;
}

it('an expired approval ask: approved false with the reason, as the client says for a case', async () => {
  const view = await expiredAsk('approval.binary');
  expect(view).toMatchObject({ status: 'expired', final: true, answer: null });
  expect(view.approval).toEqual({ approved: false, reason: approvalOf(view.case).reason });
  expect(view.approval.reason).toMatch(/^expired without a decision/);
});

it('relay.ask() hands the agent the same approval for an expired ask', async () => {
  const client = new RelayClient({ relayUrl: relay.url });
  const out = await client.ask(KINDS['approval.binary'].content as any, {
    target: 'web:expiry',
    expiresIn: 1,
  });
  expect(out.status).toBe('expired');
  expect(out.approval).toEqual({ approved: false, reason: expect.stringMatching(/^expired/) });
});

it('a decision ask that expired has no approval view (it is not an approval)', async () => {
  const view = await expiredAsk('decision.single');
  expect(view).toMatchObject({ status: 'expired', answer: null, approval: null });
});
