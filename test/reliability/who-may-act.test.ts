/**
 * Who may act: allowlists per target and per route (both must admit a person), and the audit trail
 * of each case — who tapped what, when, through which platform and chat, with what outcome —
 * readable through the API (with the API key only).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { roomMessages, tapWeb } from './web.ts';

const API_KEY = 'who-may-act-api-key-0123456789';
let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    allow: { 'web:team-a': ['ann'], 'web:ops-2': ['bob'] },
    routes: { ops: { targets: ['web:ops-1', 'web:ops-2'], allow: ['ann', 'bob'] } },
    env: { RELAY_API_KEY: API_KEY, HOST: '127.0.0.1', RELAY_ALLOW_HTTP_LOOPBACK: '1' },
  });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

async function send(target: string, type = 'approval') {
  const response = await demo.create(type, true);
  const sent = await relay.send(target, response);
  expect(sent.status).toBe(201);
  return { id: sent.body.id as string, caseId: response.hitl.case_id as string };
}

async function messageIn(room: string, id: string) {
  return eventually(
    async () => (await roomMessages(relay.url, room)).find((m) => m.case === id),
    5000,
    `the card in ${room}`,
  );
}

const submitsOf = async (caseId: string) =>
  (await demo.submissions()).filter((s) => s.case_id === caseId);

describe('allowlists', () => {
  it('per target: only listed people act; others change nothing', async () => {
    const { id, caseId } = await send('web:team-a');
    const m = await messageIn('team-a', id);
    const refused = await tapWeb(relay.url, 'team-a', m.id, 'approve', { id: 'mallory' });
    expect(refused.body.outcome).toBe('forbidden');
    expect(refused.body.text).toBe('You are not allowed to decide this one.');
    expect(await submitsOf(caseId)).toEqual([]);
    expect((await relay.get(id)).status).toBe('pending');
    const ok = await tapWeb(relay.url, 'team-a', m.id, 'approve', { id: 'ann', name: 'Ann' });
    expect(ok.body.outcome).toBe('submitted');
    const subs = await submitsOf(caseId);
    expect(subs).toHaveLength(1);
    // Platforms outside the spec's list are sent with the x- prefix it asks for.
    expect(subs[0]!.body.submitted_by).toEqual({
      platform: 'x-web',
      platform_user_id: 'ann',
      display_name: 'Ann',
    });
  });

  it('a target without an allowlist lets anyone in the chat act', async () => {
    const { id } = await send('web:open');
    const m = await messageIn('open', id);
    const r = await tapWeb(relay.url, 'open', m.id, 'approve', { id: 'zed' });
    expect(r.body.outcome).toBe('submitted');
  });

  it('an action the service does not allow inline is refused before anything is sent', async () => {
    const response = await demo.create('approval', true, { inline_actions: ['approve'] });
    const sent = await relay.send('web:open', response);
    const m = await messageIn('open', sent.body.id);
    expect(m.actions.map((a: any) => a.action)).toEqual(['approve']);
    // A hand-made request for a button the card does not have.
    const r = await tapWeb(relay.url, 'open', m.id, 'reject', { id: 'zed' });
    expect(r.body.outcome).toBe('not_allowed');
    const plain = await demo.create('approval', false);
    const sentPlain = await relay.send('web:open', plain);
    const p = await messageIn('open', sentPlain.body.id);
    expect((await tapWeb(relay.url, 'open', p.id, 'approve', { id: 'zed' })).body.outcome).toBe(
      'not_allowed',
    );
    expect(await submitsOf(response.hitl.case_id)).toEqual([]);
    expect(await submitsOf(plain.hitl.case_id)).toEqual([]);
    const view = await relay.get(sent.body.id);
    expect(view.history.find((h: any) => h.kind === 'tap_refused')).toMatchObject({
      user: 'zed',
      action: 'reject',
      reason: 'action not inline-allowed',
    });
  });

  it('per route and per target together: a person must be on both lists', async () => {
    const { id, caseId } = await send('route:ops');
    const one = await messageIn('ops-1', id);
    const two = await messageIn('ops-2', id);
    // carol is on neither list; ann is on the route's list but not on ops-2's.
    expect(
      (await tapWeb(relay.url, 'ops-1', one.id, 'approve', { id: 'carol' })).body.outcome,
    ).toBe('forbidden');
    expect((await tapWeb(relay.url, 'ops-2', two.id, 'approve', { id: 'ann' })).body.outcome).toBe(
      'forbidden',
    );
    expect(await submitsOf(caseId)).toEqual([]);
    // A tap on a message through another room's address finds nothing.
    const elsewhere = await tapWeb(relay.url, 'team-a', one.id, 'approve', { id: 'ann' });
    expect(elsewhere.status).toBe(404);
    // bob is on both lists for ops-2.
    expect(
      (await tapWeb(relay.url, 'ops-2', two.id, 'reject', { id: 'bob', name: 'Bob' })).body.outcome,
    ).toBe('submitted');
    // Both messages of the case end; a late tap is refused and recorded.
    for (const room of ['ops-1', 'ops-2'])
      await eventually(
        async () => (await messageIn(room, id)).final,
        5000,
        `the final card in ${room}`,
      );
    expect((await tapWeb(relay.url, 'ops-1', one.id, 'approve', { id: 'ann' })).body.outcome).toBe(
      'closed',
    );
    expect(await submitsOf(caseId)).toHaveLength(1);
  });
});

describe('the audit trail', () => {
  it('shows who tapped what, when, where, with what outcome', async () => {
    const { id } = await send('route:ops');
    const one = await messageIn('ops-1', id);
    const two = await messageIn('ops-2', id);
    const start = Date.now();
    await tapWeb(relay.url, 'ops-2', two.id, 'approve', { id: 'ann', name: 'Ann' });
    // Two people at once: one is submitted, the other is told someone else is answering.
    const both = await Promise.all([
      tapWeb(relay.url, 'ops-1', one.id, 'approve', { id: 'bob', name: 'Bob' }),
      tapWeb(relay.url, 'ops-1', one.id, 'reject', { id: 'ann', name: 'Ann' }),
    ]);
    expect(both.map((r) => r.body.outcome).sort()).toEqual(expect.arrayContaining(['submitted']));
    const view = await relay.get(id);
    const taps = view.history.filter((h: any) => h.kind.startsWith('tap') || h.kind === 'submit');
    for (const h of taps) {
      expect(h.platform).toBe('web');
      expect(Date.parse(h.at)).toBeGreaterThanOrEqual(start - 1000);
      expect(['web:ops-1', 'web:ops-2']).toContain(h.target);
    }
    expect(taps[0]).toMatchObject({
      kind: 'tap_refused',
      user: 'ann',
      name: 'Ann',
      action: 'approve',
      target: 'web:ops-2',
      reason: 'not on the allowlist',
    });
    const winner = both.find((r) => r.body.outcome === 'submitted')!;
    const winnerId = winner === both[0] ? 'bob' : 'ann';
    expect(taps.filter((h: any) => h.kind === 'tap')).toEqual([
      expect.objectContaining({ user: winnerId, target: 'web:ops-1' }),
    ]);
    expect(taps.filter((h: any) => h.kind === 'submit')).toEqual([
      expect.objectContaining({ user: winnerId, outcome: 'accepted' }),
    ]);
    // The other tap is in the trail too, with its reason.
    const loser = both.find((r) => r !== winner)!;
    const reason =
      loser.body.outcome === 'busy' ? 'another tap is being submitted' : 'the case is completed';
    expect(taps).toContainEqual(
      expect.objectContaining({
        kind: 'tap_refused',
        user: winnerId === 'bob' ? 'ann' : 'bob',
        reason,
      }),
    );
    expect(view.history.find((h: any) => h.kind === 'status')).toMatchObject({
      from: 'pending',
      to: 'completed',
      // The accepted submit confirmed by a poll (or the 200 body when the poll could not tell).
      source: expect.stringMatching(/^submit(_confirmed)?$/),
    });
    expect(view.submitted_by).toMatchObject({ platform: 'x-web', platform_user_id: winnerId });
  });

  it('is readable with the API key only', async () => {
    const { id } = await send('web:open');
    const res = await request(`${relay.url}/v1/cases/${id}`);
    expect(res.statusCode).toBe(401);
    await res.body.dump();
    const list = await request(`${relay.url}/v1/cases`, {
      headers: { authorization: 'Bearer not-the-key-0123456789' },
    });
    expect(list.statusCode).toBe(401);
    await list.body.dump();
  });
});

describe('the web chat', () => {
  it('(whose ids are self-declared) is on by default only in the local default', () => {
    expect(readConfig({}).webChat).toBe(true);
    expect(readConfig({ RELAY_API_KEY: API_KEY }).webChat).toBe(false);
    expect(readConfig({ RELAY_API_KEY: API_KEY, WEB_CHAT: '1' }).webChat).toBe(true);
    expect(readConfig({ WEB_CHAT: '0' }).webChat).toBe(false);
  });
});
