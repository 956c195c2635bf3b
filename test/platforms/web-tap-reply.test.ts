/**
 * Issue 36: the tap's JSON reply carries the card as the tap left it (submitted, voted, refused),
 * not as it was before the tap. Through the web chat's HTTP tap endpoint, a real relay and the
 * demo service it mounts. The case is also on Telegram (the fake Bot API), whose card edits can
 * be held: a slow platform elsewhere holds the case's queued card edits back, so the web room's
 * stored message lags the case, and the reply must not be read from it.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { mountDemo } from '../../src/demo/mount.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { FAST } from './telegram/helpers.ts';

const CHAT = -1001234567036;
let fake: FakeTelegramApi;
let relay: RelayHandle;
const releases: Array<() => void> = [];

beforeAll(async () => {
  fake = await FakeTelegramApi.start();
  relay = await startRelay({
    adapters: [
      createWebAdapter(),
      createTelegramAdapter({
        botToken: fake.token,
        apiRoot: fake.apiRoot,
        botInfo: fake.botInfo,
        ...FAST,
      }),
    ],
    allow: { 'web:refused': ['nobody'] },
    configFile: {
      policies: { 'two-of-us': { required: 2, approvers: ['web:ann', 'web:bob'] } },
      routes: {
        both: { targets: ['web:votes', `telegram:${CHAT}`], policy: 'two-of-us' },
        refused: { targets: ['web:refused', `telegram:${CHAT}`] },
      },
    },
    mount: (app, log, dataDir) => mountDemo(app, { dataDir, log }),
  });
});
afterAll(async () => {
  for (const release of releases) release();
  await relay?.stop();
  await fake?.close();
});

/** Creates a demo approval case, sends it to `route`; the web message's id once both are posted. */
async function post(route: string, room: string): Promise<string> {
  const before = fake.messages(CHAT).length;
  const res = await request(`${relay.url}/demo/api/reviews?type=approval&inline=1`, {
    method: 'POST',
  });
  const sent = await relay.send(`route:${route}`, await res.body.json());
  expect(sent.status).toBe(201);
  await eventually(async () => fake.messages(CHAT).length > before, 10_000, 'the Telegram card');
  const m = await eventually(async () => {
    const list = await request(`${relay.url}/web/api/rooms/${room}/messages`);
    return ((await list.body.json()) as Array<{ id: string; case: string }>).find(
      (x) => x.case === sent.body.id,
    );
  });
  return m.id;
}

async function tap(room: string, id: string, user: { id: string; name: string }) {
  const res = await request(`${relay.url}/web/api/rooms/${room}/messages/${id}/actions/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user }),
  });
  return (await res.body.json()) as { outcome: string; message: Record<string, any> };
}

it('a counted vote, then the deciding tap: each reply carries the card that tap produced', async () => {
  const id = await post('both', 'votes');
  // Telegram's edits hang: the case's card edits queue behind the first.
  const release = fake.hold('editMessageText');
  releases.push(release);
  const vote = await tap('votes', id, { id: 'ann', name: 'Ann' });
  expect(vote.outcome).toBe('vote_recorded');
  expect(vote.message.final).toBe(false);
  expect(vote.message.lines.join('\n')).toMatch(/1 of 2 approvals: Ann/);

  const decided = await tap('votes', id, { id: 'bob', name: 'Bob' });
  expect(decided.outcome).toBe('submitted');
  expect(decided.message.id).toBe(id);
  expect(decided.message.final).toBe(true);
  expect(decided.message.actions).toEqual([]);
  expect(decided.message.status).toMatch(/^Approved by /);
  // No secret rides along: the button key and the room stay on the server.
  expect(decided.message).not.toHaveProperty('key');
  expect(decided.message).not.toHaveProperty('room');
  release();
});

it('a refused tap answers with the card as it stands (open, its buttons kept)', async () => {
  const id = await post('refused', 'refused');
  const reply = await tap('refused', id, { id: 'mallory', name: 'Mallory' });
  expect(reply.outcome).toBe('forbidden');
  expect(reply.message.id).toBe(id);
  expect(reply.message.final).toBe(false);
  expect(reply.message.actions.map((a: { action: string }) => a.action)).toContain('approve');
});
