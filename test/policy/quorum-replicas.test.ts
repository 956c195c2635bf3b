/**
 * Approval policies across replicas: three `hitl-relay serve` processes on one PostgreSQL, Telegram
 * in webhook mode. The first approval lands at one replica, which is SIGKILLed; the second
 * approval, at another replica, meets the policy. The vote survived the kill (it was stored
 * before it counted), the same person from a second account counts once, and the service gets
 * exactly one submit per case, after the second approval.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { User } from 'grammy/types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import type { RelayProcess } from '../helpers/process.ts';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import { runLimited } from '../helpers/run-limited.ts';
import { type Cluster, deliverUpdate, startCluster } from '../replicas/cluster.ts';
import { cardOf, isFinalCard } from '../replicas/scenario.ts';

const CASES = 10;
const CHAT = 880_001;
const dir = mkdtempSync(join(tmpdir(), 'hitl-quorum-replicas-'));
let telegram: FakeTelegramApi;
let demo: DemoHandle;
let cluster: Cluster;

const ann: User = FakeTelegramApi.user(4242, 'Ann');
const annPhone: User = FakeTelegramApi.user(4343, 'Ann (phone)');
const bob: User = FakeTelegramApi.user(5151, 'Bob');

beforeAll(async () => {
  telegram = await FakeTelegramApi.start();
  demo = await startDemo();
  const config = join(dir, 'relay-config.json');
  writeFileSync(
    config,
    JSON.stringify({
      policies: { 'four-eyes': { required: 2 } },
      target_policies: { [`telegram:${CHAT}`]: 'four-eyes' },
      identities: { 'ann@example.com': ['telegram:4242', 'telegram:4343'] },
    }),
  );
  cluster = await startCluster({
    count: 3,
    telegram,
    env: { RELAY_CONFIG: config, POLL_INTERVAL_MIN_SECONDS: '2', POLL_INTERVAL_MAX_SECONDS: '5' },
  });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  await demo?.stop();
  await telegram?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function approve(n: number, from: User, at?: RelayProcess): Promise<void> {
  const card = cardOf(telegram, { n, chat: CHAT });
  const data = card.buttons.find((b) => b.endsWith(':approve'));
  if (!data) throw new Error(`case ${n} shows no Approve button`);
  const update = telegram.callbackQuery({ chatId: CHAT, messageId: card.messageId, data, from });
  await deliverUpdate(cluster, update, at);
}

it('two approvals across replicas with a SIGKILL between them: one submit each, after the second', async () => {
  const runs = Array.from({ length: CASES }, (_, n) => ({ n, caseId: '', relayId: '' }));
  await runLimited(runs, 8, async (c) => {
    const response = await demo.create('approval', true, { prompt: `Release #${c.n}: deploy it?` });
    c.caseId = response.hitl.case_id;
    const r = await cluster.send(`telegram:${CHAT}`, response);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    c.relayId = r.body.id;
  });
  for (const c of runs)
    await eventually(async () => {
      try {
        return cardOf(telegram, { n: c.n, chat: CHAT });
      } catch {
        return null;
      }
    }, 30_000);

  const [first, second] = cluster.replicas as [RelayProcess, RelayProcess, RelayProcess];
  await runLimited(runs, 4, (c) => approve(c.n, ann, first));
  // Every first vote is stored before the replica that took it dies.
  await eventually(
    async () => {
      for (const c of runs) {
        const view = (await cluster.api(second, 'GET', `/v1/cases/${c.relayId}`)).body;
        if (view.policy?.votes?.length !== 1) return false;
      }
      return true;
    },
    30_000,
    'the first votes',
  );
  await cluster.kill(first);
  const subs = async () => {
    const all = await demo.submissions();
    return runs.map((c) => all.filter((s) => s.case_id === c.caseId).length);
  };
  expect(await subs()).toEqual(runs.map(() => 0));

  // Ann again from her phone, at a live replica: the same person, no second vote.
  await approve(0, annPhone, second);
  await eventually(async () => {
    const h = (await cluster.api(second, 'GET', `/v1/cases/${runs[0]!.relayId}`)).body.history;
    return h.some((x: any) => x.kind === 'vote_refused' && x.reason === 'already_voted');
  });
  expect((await subs())[0]).toBe(0);

  await runLimited(runs, 4, (c) => approve(c.n, bob));
  await eventually(
    async () => runs.every((c) => isFinalCard(cardOf(telegram, { n: c.n, chat: CHAT }))),
    60_000,
    'every card final',
  );
  expect(await subs()).toEqual(runs.map(() => 1));
  for (const c of runs) {
    const view = (await cluster.api(cluster.pick(), 'GET', `/v1/cases/${c.relayId}`)).body;
    expect(view.status).toBe('completed');
    expect(view.submitted_by).toMatchObject({ platform_user_id: '5151' });
    expect(view.policy.votes.map((v: any) => v.identity)).toEqual([
      'ann@example.com',
      'telegram:5151',
    ]);
  }
}, 120_000);
