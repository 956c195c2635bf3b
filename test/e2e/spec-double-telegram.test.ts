/**
 * The spec double driven through the fake Telegram Bot API (grammy runs for real against it): a
 * browser decision seen with the agent's credentials reaches the Telegram message; a service that
 * answers 500 until its page is opened gets an honest toast and card line, and after Details a tap
 * succeeds; a refused watch is said on the message.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MessageRef } from '../../src/adapter.ts';
import type { AdapterHarness } from '../contract/harness.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { makeTelegramPollingHarness } from '../platforms/telegram/harness.ts';

const KEY = 'Bearer telegram-agent-key-0123456789';
const ANN = { id: '111222333', name: 'Ann Example' };
let double: SpecDouble;
let h: AdapterHarness;
let relay: RelayHandle;

beforeAll(async () => {
  double = await startSpecDouble();
  h = await makeTelegramPollingHarness();
  relay = await startRelay({ adapters: [h.adapter] });
});
afterAll(async () => {
  await relay.stop();
  await h.close();
  await double.close();
});

const address = () => h.target.slice('telegram:'.length);

/** Sends a case and returns its Telegram message ref (the newest message in the chat). */
async function post(body: Record<string, any>, extra: Record<string, unknown> = {}) {
  const before = (await h.messages(address())).length;
  const res = await relay.send(h.target, body, extra);
  expect(res.status).toBe(201);
  const ref = await eventually(async () => {
    const all = await h.messages(address());
    return all.length > before ? all.at(-1) : undefined;
  });
  return { id: res.body.id as string, ref: ref as MessageRef };
}

it('AUTH-9 telegram: a browser decision seen with the agent credentials edits the message to final', async () => {
  double.requireAuth(KEY);
  try {
    const body = double.create();
    const { id, ref } = await post(body, { service_auth: { headers: { Authorization: KEY } } });
    expect((await h.read(ref)).actions).toEqual(['approve', 'reject']);
    double.complete(body.hitl.case_id, 'approve');
    await relay.until(id, (v) => v.status === 'completed');
    const seen = await eventually(async () => {
      const m = await h.read(ref);
      return m.actions.length === 0 && /Approved/.test(m.text) ? m : undefined;
    });
    expect(seen.text).toContain('Browser Bob');
  } finally {
    double.requireAuth(null);
  }
});

it('SUBMIT-12 telegram: 500 until the page is opened, then Details, then the tap succeeds', async () => {
  const body = double.create();
  double.get(body.hitl.case_id).failSubmitUntilOpened = true;
  const { id, ref } = await post(body);
  const first = await h.tap({ ref, action: 'approve', user: ANN, relayUrl: relay.url });
  expect(first.notice).toContain('The service failed (it answered 500)');
  await eventually(async () => (await h.read(ref)).text.includes('The service failed'));
  expect((await h.read(ref)).actions).toEqual(['approve', 'reject']);
  expect((await relay.get(id)).status).toBe('pending');
  // The Details button leads (through the relay's link) to the review page.
  const link = (await h.read(ref)).link!;
  const redirect = await fetch(link.replace(/^https?:\/\/[^/]+/, relay.url), {
    redirect: 'manual',
  });
  await fetch(redirect.headers.get('location')!);
  const second = await h.tap({ ref, action: 'approve', user: ANN, relayUrl: relay.url });
  expect(second.notice ?? '').not.toContain('failed');
  const v = await relay.until(id, (x) => x.status === 'completed');
  expect(v.result).toMatchObject({ action: 'approve', data: { via_double: true } });
  await eventually(async () => (await h.read(ref)).actions.length === 0);
});

it('WATCH-6 telegram: a refused watch is said on the message', async () => {
  double.requireAuth(KEY);
  try {
    const body = double.create();
    const { ref } = await post(body);
    await eventually(async () => (await h.read(ref)).text.includes('cannot see this case'));
    expect((await h.read(ref)).text).toContain('401');
  } finally {
    double.requireAuth(null);
  }
});
