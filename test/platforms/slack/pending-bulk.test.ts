/**
 * Issue 35, bulk decisions in a Slack `/pending` list: a real relay and the Slack adapter (HTTP
 * mode) against the fake Slack, a fast fake HITL service counting submits per case. The ephemeral
 * list offers "Approve all (n)" only for cases a bulk decision may take; a press replaces it (the
 * interaction's response_url) with a confirm step naming each case and those left out with why
 * (four-eyes); Confirm is this person's only and single use, and submits each chosen case once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import { createSlackAdapter, SLACK_EVENTS_PATH } from '../../../platforms/slack/index.ts';
import { FakeSlack, type FakeSlackMessage } from '../../fakes/slack-api.ts';
import {
  blockActionsPayload,
  interactionForm,
  signSlackRequest,
  slashCommandForm,
} from '../../fakes/slack-interactions.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_CHANNEL,
  SLACK_TEST_PACE,
  SLACK_TEST_SIGNING_SECRET,
  unescapeSlack,
} from './harness.ts';

const CHANNEL = SLACK_TEST_CHANNEL;
const PAIRS = 'C0PAIRS';
let service: Awaited<ReturnType<typeof startFastService>>;
let fake: FakeSlack;
let relay: RelayHandle;
let clock = Date.now();
const submitted: string[] = [];
let presses = 1;

beforeAll(async () => {
  service = await startFastService();
  service.onSubmit = (id) => submitted.push(id);
  fake = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  const adapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      signingSecret: SLACK_TEST_SIGNING_SECRET,
      apiUrl: fake.apiUrl,
      mode: 'http',
      botId: fake.botId,
      botUserId: fake.botUserId,
    },
    { retryConfig: { retries: 0 }, pace: SLACK_TEST_PACE },
  );
  relay = await startRelay({
    adapters: [adapter],
    now: () => clock,
    allow: { [`slack:${CHANNEL}`]: ['U0ANN'], [`slack:${PAIRS}`]: ['U0ANN'] },
    configFile: {
      policies: { pair: { required: 2 } },
      routes: {
        four: { targets: [`slack:${CHANNEL}`], policy: 'pair' },
        pairs: { targets: [`slack:${PAIRS}`], policy: 'pair' },
      },
    },
  });
  for (const [target, name] of [
    [`slack:${CHANNEL}`, 'sl-bulk-1'],
    [`slack:${CHANNEL}`, 'sl-bulk-2'],
    ['route:four', 'sl-bulk-four'],
    ['route:pairs', 'sl-bulk-pair'],
  ] as const) {
    clock += 1000;
    expect((await relay.send(target, service.create(name))).status).toBe(201);
  }
  await eventually(async () => fake.messages(CHANNEL).length === 3, 10_000, 'the cards');
});
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
  await service?.stop();
});

async function post(body: string): Promise<Response> {
  return fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
    method: 'POST',
    headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
    body,
  });
}

type Shown = { text: string; blocks: any[]; replace_original?: boolean };
async function slash(channelId: string, userId: string): Promise<Shown> {
  const form = slashCommandForm({ fake, command: '/pending', text: '', channelId, userId });
  return (await (await post(form)).json()) as Shown;
}
const shown = (m: Shown) => unescapeSlack(m.blocks[0]?.text?.text ?? '');
const buttons = (m: Shown) => (m.blocks[1]?.elements ?? []) as any[];

/** A press of `button` on an ephemeral message, as Slack posts it; the response_url answer. */
async function press(list: Shown, button: Record<string, unknown>, userId: string): Promise<Shown> {
  const message: FakeSlackMessage = {
    channel: CHANNEL,
    ts: '1700000000.000200',
    text: list.text,
    blocks: list.blocks,
    attachments: [],
    edits: 0,
  };
  const payload = blockActionsPayload({
    fake,
    message,
    button,
    blockId: 'b',
    user: { id: userId },
  });
  payload.container = { ...(payload.container as object), is_ephemeral: true };
  delete payload.message;
  // Each interaction has its own response_url (five uses each), as Slack gives them.
  payload.response_url = String(payload.response_url).replace(/\/1\/fake$/, `/${++presses}/fake`);
  const before = fake.responseUrls.posted.length;
  expect((await post(interactionForm(payload))).status).toBe(200);
  return eventually(
    async () => fake.responseUrls.posted[before]?.body as Shown,
    10_000,
    'the response_url message',
  );
}

it('PENDING-SL-BULK-1 no bulk button when no listed case may be in a bulk decision', async () => {
  const list = await slash(PAIRS, 'U0ANN');
  expect(shown(list)).toContain('sl-bulk-pair');
  expect(JSON.stringify(list.blocks)).not.toMatch(/ all \(/);
});

it('PENDING-SL-BULK-2 confirm lists the cases and those left out; only its owner, only once', async () => {
  const list = await slash(CHANNEL, 'U0ANN');
  const all = buttons(list).find((b) => b.text.text === 'Approve all (2)');
  expect(all.value).toMatch(/^hitlb:/);

  const refused = await press(list, all, 'U0MAL');
  expect(refused).toMatchObject({
    replace_original: false,
    text: 'This button is no longer active.',
  });

  const step = await press(list, all, 'U0ANN');
  expect(step.replace_original).toBe(true);
  const text = shown(step);
  expect(text.split('\n')[0]).toMatch(/^Approve: 2 cases/);
  expect(text).toContain('1. Deploy build sl-bulk-2 to production?');
  expect(text).toContain('2. Deploy build sl-bulk-1 to production?');
  expect(text).toMatch(/Left out:\n• Deploy build sl-bulk-four to production\? — four-eyes/);
  expect(submitted).toEqual([]);
  const [confirm, cancel] = buttons(step);
  expect([confirm.text.text, cancel.text.text]).toEqual(['Confirm', 'Cancel']);

  const theirs = await press(step, confirm, 'U0MAL');
  expect(theirs.replace_original).toBe(false);
  expect(theirs.text).toContain('used, expired or not yours');
  expect(submitted).toEqual([]);

  const done = await press(step, confirm, 'U0ANN');
  expect(done.replace_original).toBe(true);
  const results = shown(done);
  expect(results).toMatch(/^Approve: the outcome of each of 2 cases/);
  expect(results).toContain('✅ Deploy build sl-bulk-2 to production?');
  expect(results).toContain('✅ Deploy build sl-bulk-1 to production?');
  expect([...submitted].sort()).toEqual(['sl-bulk-1', 'sl-bulk-2']);

  const again = await press(step, confirm, 'U0ANN');
  expect(again.text).toContain('used, expired or not yours');
  expect(submitted).toHaveLength(2);

  // Cancel shows the list again (the cases decided are gone from it).
  const back = await press(step, cancel, 'U0ANN');
  expect(shown(back)).not.toContain('sl-bulk-1');
  expect(shown(back)).toContain('sl-bulk-four');
});
