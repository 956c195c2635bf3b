/**
 * Issue 9's acceptance: three relay processes on one PostgreSQL, the demo HITL service and Telegram
 * in webhook mode (the fake Bot API). 1,000 cases come in through random replicas; taps arrive at
 * random replicas, some at two replicas at the same moment; one replica is SIGKILLed half-way.
 * Every case ends final on its message, each tapped case is submitted exactly once, no message is
 * posted twice, and no case is left unwatched.
 */
import type { User } from 'grammy/types';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import type { RelayProcess } from '../helpers/process.ts';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import { runLimited } from '../helpers/run-limited.ts';
import { type Cluster, deliverUpdate, PUBLIC_URL, startCluster } from './cluster.ts';
import { type CaseRun, cardOf, deadHands, isFinalCard, shuffle } from './scenario.ts';

const CASES = 1000;
const CHATS = 200;
const TAPPED = 500;
/** Of the tapped cases, how many get two taps at two replicas at the same moment. */
const DOUBLE = 100;
/** A person whose tap brought no visible change taps again after this long. */
const RETAP_AFTER_MS = 3000;

let telegram: FakeTelegramApi;
let demo: DemoHandle;
let cluster: Cluster;

beforeAll(async () => {
  telegram = await FakeTelegramApi.start();
  demo = await startDemo();
  cluster = await startCluster({
    count: 3,
    telegram,
    env: { POLL_INTERVAL_MIN_SECONDS: '2', POLL_INTERVAL_MAX_SECONDS: '5' },
  });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  await demo?.stop();
  await telegram?.close();
});

const ann: User = FakeTelegramApi.user(424242, 'Ann', { last_name: 'Example' });

/** Ann taps Approve on the case's card, at the replica the balancer picks (or `at`). */
async function tap(c: CaseRun, at?: RelayProcess): Promise<void> {
  const card = cardOf(telegram, c);
  const data = card.buttons.find((b) => b.endsWith(':approve'));
  if (!data) return; // the card is final already: nothing left to tap
  c.lastTapAt = Date.now();
  c.taps++;
  const update = telegram.callbackQuery({
    chatId: c.chat,
    messageId: c.messageId,
    data,
    from: ann,
  });
  await deliverUpdate(cluster, update, at);
}

it('runs 1,000 cases over 3 replicas with a SIGKILL half-way: once, final, watched', async () => {
  const t0 = Date.now();
  const runs: CaseRun[] = Array.from({ length: CASES }, (_, n) => ({
    n,
    chat: 700_000 + (n % CHATS),
    caseId: '',
    relayId: '',
    response: {},
    messageId: 0,
    key: '',
    taps: 0,
    lastTapAt: 0,
  }));

  // The agent: each 202 body goes to whichever replica the balancer hands out.
  await runLimited(runs, 24, async (c) => {
    c.response = await demo.create('approval', true, { prompt: `Release #${c.n}: deploy it?` });
    c.caseId = c.response.hitl.case_id;
    const r = await cluster.send(`telegram:${c.chat}`, c.response);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    c.relayId = r.body.id;
  });
  const tIntake = Date.now();
  // A post that failed at intake (a timeout under load) is posted again by reconcile (30 s later).
  for (const c of runs) {
    const card = await eventually(
      async () => {
        try {
          return cardOf(telegram, c);
        } catch {
          return null;
        }
      },
      60_000,
      `the card of case ${c.n}`,
    );
    c.messageId = card.messageId;
    c.key = card.key;
  }

  // People tap at random replicas; some cases get two taps at two replicas at once.
  const tapped = shuffle(runs).slice(0, TAPPED);
  const doubles = new Set(tapped.slice(0, DOUBLE));
  const victim = cluster.replicas[Math.floor(Math.random() * cluster.replicas.length)]!;
  let started = 0;
  let killed: Promise<void> | undefined;
  let left: Awaited<ReturnType<typeof deadHands>> | undefined;
  await runLimited(shuffle(tapped), 12, async (c) => {
    if (++started === TAPPED / 2)
      killed = cluster.kill(victim).then(async () => {
        left = await deadHands(cluster.env.DATABASE_URL!, victim.child.pid!);
      });
    if (!doubles.has(c)) return tap(c);
    const a = cluster.pick();
    await Promise.all([tap(c, a), tap(c, cluster.pick(a))]);
  });
  await killed;
  const tTaps = Date.now();

  // The reviewer answers every untapped case on the service's own page, after the kill.
  const tappedSet = new Set(tapped);
  const untapped = runs.filter((c) => !tappedSet.has(c));
  await runLimited(untapped, 16, (c) => demo.act(c.caseId, { step: 'respond', action: 'reject' }));

  // Wait until every card is final; a person whose tap came to nothing (the replica died with it)
  // taps again, as anyone would.
  await eventually(
    async () => {
      const open = runs.filter((c) => !isFinalCard(cardOf(telegram, c)));
      for (const c of open)
        if (tappedSet.has(c) && Date.now() - c.lastTapAt > RETAP_AFTER_MS) void tap(c);
      if (open.length) return false;
      const r = await cluster.api(cluster.pick(), 'GET', '/v1/cases?open=1&limit=500');
      return r.body.cases.length === 0;
    },
    150_000,
    'every card final',
  );
  const tDone = Date.now();

  // No message posted twice: one sendMessage per case, each case's card exactly once.
  expect(telegram.calls('sendMessage')).toHaveLength(CASES);
  for (const c of runs) expect(cardOf(telegram, c).count).toBe(1);

  // Every card final, saying what happened; the relay agrees.
  for (const c of runs) {
    const card = cardOf(telegram, c);
    expect(card.buttons).toEqual([]);
    expect(card.text).toContain(tappedSet.has(c) ? 'Approved by Ann Example' : 'Rejected');
  }
  await runLimited(shuffle(runs).slice(0, 100), 8, async (c) => {
    const view = (await cluster.api(cluster.pick(), 'GET', `/v1/cases/${c.relayId}`)).body;
    expect(view.status).toBe('completed');
    // A change after the final card (e.g. submitted_by recorded after a poll completed the case)
    // is re-rendered by the edit it triggers or by reconcile: the relay's record catches up.
    await eventually(
      async () =>
        (await cluster.api(cluster.pick(), 'GET', `/v1/cases/${c.relayId}`)).body.messages.every(
          (m: any) => m.state === 'posted' && m.current,
        ),
      30_000,
      `the message record of case ${c.n}`,
    );
  });

  // Exactly one accepted submit per tapped case (with its valid token), none for the others. The
  // only other POST the protocol allows is the retry of a submit whose answer was lost (a timeout
  // under load), which the service refuses as a duplicate (409); nothing is sent once "accepted"
  // was heard.
  const submissions: any[] = await demo.submissions();
  const duplicates: CaseRun[] = [];
  const wrong: CaseRun[] = [];
  for (const c of runs) {
    const posts = submissions.filter((s) => s.case_id === c.caseId);
    const accepted = posts.filter((s) => s.status === 200).length;
    if (accepted !== (tappedSet.has(c) ? 1 : 0) || posts.some((s) => !s.bearer_valid))
      wrong.push(c);
    else if (posts.length > 1) duplicates.push(c);
  }
  for (const c of duplicates) {
    const history = (await cluster.api(cluster.pick(), 'GET', `/v1/cases/${c.relayId}`)).body
      .history as any[];
    // No submit may start after one was heard accepted (a second claim would show as a later entry).
    const submits = history.filter((h) => h.kind === 'submit');
    const heard = submits.findIndex((h) => h.outcome === 'accepted');
    const refused = submissions.filter((s) => s.case_id === c.caseId && s.status !== 200);
    if ((heard >= 0 && heard < submits.length - 1) || refused.some((s) => s.status !== 409))
      wrong.push(c);
  }
  // On failure: what the service received and what the relay did, for the first few.
  const explained = await Promise.all(
    wrong.slice(0, 3).map(async (c) => ({
      case: c.caseId,
      tapped: tappedSet.has(c),
      posts: submissions
        .filter((s) => s.case_id === c.caseId)
        .map((s) => ({ status: s.status, at: s.at, fault: s.fault, bearer_valid: s.bearer_valid })),
      history: (await cluster.api(cluster.pick(), 'GET', `/v1/cases/${c.relayId}`)).body.history,
    })),
  );
  expect(explained).toEqual([]);

  // Details links go through PUBLIC_URL and work at any replica (one link key for all).
  for (const c of runs.slice(0, 20)) {
    const link = cardOf(telegram, c).link;
    expect(link?.startsWith(`${PUBLIC_URL}/r/${c.key}/`)).toBe(true);
    for (const r of cluster.live()) {
      const res = await request(`${r.url}${new URL(link!).pathname}`);
      await res.body.dump();
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(c.response.hitl.review_url);
    }
  }

  // Nothing failed inside a replica (a failing statement would only show as slow watching).
  const errors = cluster
    .output()
    .split('\n')
    .filter((line) => line.includes('"level":50') || line.includes('"level":60'));
  expect(errors).toEqual([]);

  // No secret in any replica's output.
  const output = cluster.output();
  for (const name of ['RELAY_API_KEY', 'RELAY_SECRET_KEY', 'TELEGRAM_WEBHOOK_SECRET'])
    expect(output).not.toContain(cluster.env[name]);
  expect(output).not.toContain(telegram.token);
  for (const c of runs) {
    expect(output).not.toContain(c.response.hitl.submit_token);
    expect(output).not.toContain(new URL(c.response.hitl.review_url).searchParams.get('token'));
  }

  console.info(
    `replicas: ${CASES} cases in ${tIntake - t0} ms; ${TAPPED} taps (${DOUBLE} double) in ${tTaps - tIntake} ms; ` +
      `all final ${tDone - tTaps} ms later; taps made ${runs.reduce((n, c) => n + c.taps, 0)}; ` +
      `the killed replica left ${left?.leases ?? '?'} leases and ${left?.claims ?? '?'} claims; ` +
      `retried submits refused as duplicates: ${duplicates.length}`,
  );
}, 240_000);
