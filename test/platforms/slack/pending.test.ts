/**
 * Issue 35, `/pending` on Slack: a real relay and the Slack adapter (HTTP mode) against the fake
 * Slack. The slash command is answered ephemerally (only the asker sees it), five a page; its
 * "More" button replaces that ephemeral list through the interaction's response_url (the fake
 * serves Slack's response_url wire format), and only its owner can page it; someone the allowlist
 * leaves out sees nothing of the cases; `mine` lists the cases whose policy names the person.
 * Each item links to its card by the permalink the fake answers to chat.getPermalink.
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
let service: Awaited<ReturnType<typeof startFastService>>;
let fake: FakeSlack;
let relay: RelayHandle;
let clock = Date.now();

beforeAll(async () => {
  service = await startFastService();
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
    allow: { [`slack:${CHANNEL}`]: ['U0ANN', 'U0CAROL'] },
    configFile: {
      policies: { pair: { required: 2, approvers: ['slack:U0CAROL', 'slack:U0DAVE'] } },
      routes: { four: { targets: [`slack:${CHANNEL}`], policy: 'pair' } },
    },
  });
  for (let i = 1; i <= 6; i++) {
    clock += 1000;
    expect((await relay.send(`slack:${CHANNEL}`, service.create(`sl-pend-${i}`))).status).toBe(201);
  }
  clock += 1000;
  expect((await relay.send('route:four', service.create('sl-pend-policy'))).status).toBe(201);
  await eventually(async () => fake.messages(CHANNEL).length === 7, 10_000, 'the cards');
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

/** `command text` from `userId` in the channel; the HTTP answer is what Slack shows (ephemeral). */
async function slash(command: string, text: string, userId: string) {
  const res = await post(slashCommandForm({ fake, command, text, channelId: CHANNEL, userId }));
  expect(res.status).toBe(200);
  return (await res.json()) as { response_type: string; text: string; blocks: any[] };
}

const shown = (m: { blocks: any[] }) => unescapeSlack(m.blocks[0]?.text?.text ?? '');

/** A press of the list's More button, as Slack posts it for an ephemeral message. */
async function pressMore(list: { text: string; blocks: any[] }, userId: string) {
  const message: FakeSlackMessage = {
    channel: CHANNEL,
    ts: '1700000000.000100',
    text: list.text,
    blocks: list.blocks,
    attachments: [],
    edits: 0,
  };
  const button = list.blocks[1].elements[0];
  const payload = blockActionsPayload({
    fake,
    message,
    button,
    blockId: 'more',
    user: { id: userId },
  });
  // An ephemeral message is not in the channel's history: Slack sends its container, no message.
  payload.container = { ...(payload.container as object), is_ephemeral: true };
  delete payload.message;
  const before = fake.responseUrls.posted.length;
  expect((await post(interactionForm(payload))).status).toBe(200);
  return eventually(
    async () => fake.responseUrls.posted[before]?.body as any,
    10_000,
    'the response_url message',
  );
}

it('PENDING-SL-1 an ephemeral list, newest first, and a More button that replaces it via response_url', async () => {
  const calls = fake.requests.length;
  const first = await slash('/pending', '', 'U0ANN');
  expect(first.response_type).toBe('ephemeral');
  const text = shown(first);
  expect(text.split('\n')[0]).toBe('Waiting for a decision here (5+), newest first:');
  expect(text).toContain('1. Deploy build sl-pend-6 to production?');
  expect(text).toContain('5. Deploy build sl-pend-2 to production?');
  expect(text).not.toContain('sl-pend-1 ');
  expect(text).not.toContain('sl-pend-policy');
  // Nothing went to the channel: the list is the ephemeral answer itself; each item links to its
  // card by the permalink Slack gave (chat.getPermalink, one per card of the page).
  expect(fake.requests.slice(calls).map((r) => r.method)).toEqual(
    Array(5).fill('chat.getPermalink'),
  );
  const cards = fake.messages(CHANNEL).filter((m) => m.text.includes('sl-pend-6'));
  expect(cards).toHaveLength(1);
  const url = `https://fake.slack.test/archives/${CHANNEL}/p${cards[0]!.ts.replace('.', '')}`;
  expect(first.blocks[0].text.text.split('\n')[1]).toMatch(
    new RegExp(`^1\\. Deploy build sl-pend-6 .* · <${url.replace(/[.]/g, '\\.')}\\|[^>]+>$`),
  );
  expect(first.blocks[1].elements[0].value).toMatch(/^hitlp:/);

  const refused = await pressMore(first, 'U0MAL');
  expect(refused.replace_original).toBe(false);
  expect(refused.text).toBe('This button is no longer active.');

  const second = await pressMore(first, 'U0ANN');
  expect(second.replace_original).toBe(true);
  expect(second.response_type).toBe('ephemeral');
  expect(shown(second)).toContain('1. Deploy build sl-pend-1');
  expect(shown(second)).not.toContain('sl-pend-2');
  expect(second.blocks[0].text.text).toContain('<https://fake.slack.test/archives/');
  // The last page has no More button (its bulk buttons are PENDING-SL-BULK's); its item's Re-post.
  const values = second.blocks.slice(1).flatMap((b: any) => b.elements.map((e: any) => e.value));
  expect(values.filter((v: string) => v.startsWith('hitlp:'))).toEqual([]);
  const labels = second.blocks
    .slice(1)
    .flatMap((b: any) => b.elements.map((e: any) => String(e.text.text)));
  expect(labels.filter((t: string) => t.startsWith('Re-post'))).toEqual(['Re-post 1']);
});

it('PENDING-SL-2 privacy: not on the allowlist sees nothing; mine (and /hitl pending mine) for the approver', async () => {
  const none = await slash('/pending', '', 'U0MAL');
  expect(none.response_type).toBe('ephemeral');
  expect(shown(none)).toBe('Nothing is waiting for you here.');
  expect(none.blocks).toHaveLength(1);

  for (const [command, text] of [
    ['/pending', 'mine'],
    ['/hitl', 'pending mine'],
  ] as const) {
    const mine = await slash(command, text, 'U0CAROL');
    expect(shown(mine)).toContain('1. Deploy build sl-pend-policy');
    expect(shown(mine)).toContain('0 of 2 approvals');
    expect(shown(mine)).not.toContain('sl-pend-6');
  }
  expect(shown(await slash('/pending', 'mine', 'U0ANN'))).toBe(
    'Nothing here names you as an approver.',
  );
});
