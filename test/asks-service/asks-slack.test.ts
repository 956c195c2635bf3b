/**
 * Asks in Slack against the fake Slack Web API: single, multi and rank decisions arrive as native
 * selects (static_select, multi_static_select, one select per place) with a Submit button; the
 * person's selections come back in block_actions `state.values`; a bad answer is told to that
 * person ephemerally with nothing recorded; a good one comes back typed from /wait.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSlackAdapter,
  SLACK_EVENTS_PATH,
  type SlackAdapter,
} from '../../platforms/slack/index.ts';
import { KINDS } from '../asks/fixtures.ts';
import { FakeSlack, type FakeSlackMessage } from '../fakes/slack-api.ts';
import {
  blockActionsPayload,
  findButton,
  interactionForm,
  signSlackRequest,
} from '../fakes/slack-interactions.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import {
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_CHANNEL,
  SLACK_TEST_SIGNING_SECRET,
  unescapeSlack,
} from '../platforms/slack/harness.ts';

let relay: RelayHandle;
let fake: FakeSlack;
let adapter: SlackAdapter;
const ann = { id: 'U0ANN', name: 'ann' };

beforeAll(async () => {
  fake = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  fake.addUser({ id: ann.id, name: 'ann', realName: 'Ann Example', displayName: 'Ann' });
  adapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      signingSecret: SLACK_TEST_SIGNING_SECRET,
      apiUrl: fake.apiUrl,
      mode: 'http',
      botId: fake.botId,
      botUserId: fake.botUserId,
    },
    { retryConfig: { retries: 0 } },
  );
  relay = await startRelay({ adapters: [adapter] });
});
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
});

/** The cards in the test channel, oldest first. */
const cards = (): FakeSlackMessage[] =>
  fake.messages(SLACK_TEST_CHANNEL).filter((m) => m.blocks.length > 0);

type Selection = Record<string, string | string[] | undefined>;

/** Submits the ask on the newest card with `selections` (action_id suffix -> value(s)) in state. */
async function submitAsk(selections: Selection): Promise<string | null> {
  const message = cards().at(-1)!;
  const block = message.blocks.find((b) => String(b.block_id ?? '').startsWith('hitl-ask-'))!;
  const elements = block.elements as Array<Record<string, any>>;
  const button = elements.find((e) => e.type === 'button')!;
  const state: Record<string, Record<string, unknown>> = { [String(block.block_id)]: {} };
  for (const el of elements.filter((e) => e.type !== 'button')) {
    const tail = String(el.action_id).split(':').slice(2).join(':');
    const picked = selections[tail];
    const option = (v: string) => ({ text: { type: 'plain_text', text: v }, value: v });
    state[String(block.block_id)]![el.action_id] =
      el.type === 'multi_static_select'
        ? { type: el.type, selected_options: ((picked as string[]) ?? []).map(option) }
        : { type: el.type, selected_option: typeof picked === 'string' ? option(picked) : null };
  }
  const payload = blockActionsPayload({
    fake,
    message,
    button,
    blockId: String(block.block_id),
    user: ann,
  });
  payload.state = { values: state };
  const body = interactionForm(payload);
  const before = fake.requests.length;
  const res = await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
    method: 'POST',
    headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
    body,
  });
  await res.arrayBuffer();
  await adapter.idle();
  const notice = fake.ephemerals.filter((e) => e.seq >= before).at(-1);
  return notice ? unescapeSlack(notice.text) : null;
}

async function ask(content: unknown): Promise<string> {
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `slack:${SLACK_TEST_CHANNEL}`, content }),
  });
  const body = (await res.body.json()) as any;
  expect(res.statusCode, JSON.stringify(body)).toBe(202);
  return body.relay.id;
}

async function view_(id: string, wait = false): Promise<any> {
  const res = await request(`${relay.url}/v1/asks/${id}${wait ? '/wait?timeout=10' : ''}`);
  return res.body.json();
}

describe('asks in Slack', () => {
  it.each([
    [
      'decision.single',
      'static_select',
      { one: 'qa' },
      { one: 'staging' },
      { selected: 'staging' },
    ],
    [
      'decision.multi',
      'multi_static_select',
      { many: ['infra', 'backend', 'frontend'] },
      { many: ['backend', 'infra'] },
      { selected: ['infra', 'backend'] },
    ],
    [
      'decision.rank',
      'static_select',
      { 'rank:0': 'push', 'rank:1': 'push', 'rank:2': 'sms' },
      { 'rank:0': 'push', 'rank:1': 'email', 'rank:2': 'sms' },
      { ranking: ['push', 'email', 'sms'] },
    ],
  ] as const)(
    '%s: native %s, bad answer told ephemerally, typed answer',
    async (kind, type, bad, good, result) => {
      const before = cards().length;
      const id = await ask(KINDS[kind].content);
      await eventually(async () => cards().length > before);
      const message = cards().at(-1)!;
      const block = message.blocks.find((b) => String(b.block_id ?? '').startsWith('hitl-ask-'));
      expect(block, JSON.stringify(message.blocks)).toBeDefined();
      expect((block!.elements as any[]).map((e) => e.type)).toContain(type);

      const refused = await submitAsk(bad as Selection);
      expect(refused).toMatch(/not valid/);
      expect((await view_(id)).status).toBe('pending');

      const accepted = await submitAsk(good as Selection);
      expect(accepted).toBeNull();
      expect(await view_(id, true)).toMatchObject({ kind, status: 'completed', answer: result });
    },
  );

  it('draws one button per choice for approvals with their own choice keys, and Details', async () => {
    const before = cards().length;
    await ask({
      type: 'approval',
      sub_type: 'binary',
      prompt: 'Ship it?',
      choices: [
        { key: 'ship', label: 'Ship' },
        { key: 'hold', label: 'Hold' },
      ],
    });
    await eventually(async () => cards().length > before);
    const elements = cards()
      .at(-1)!
      .blocks.filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements as Array<Record<string, unknown>>);
    const label = (e: Record<string, unknown>) => (e.text as { text?: string } | undefined)?.text;
    expect(elements.map(label)).toEqual(['Ship', 'Hold', expect.any(String)]);
    expect(String(elements.at(-1)!.url)).toMatch(/\/r\//);
  });

  it.each([
    [
      'context.form',
      ['plain_text_input', 'number_input', 'checkboxes', 'datepicker', 'static_select'],
      {
        'f.ticket_id': { type: 'plain_text_input', value: '' },
        'f.team': { type: 'static_select', selected_option: null },
      },
      'f.ticket_id',
      {
        'f.ticket_id': { type: 'plain_text_input', value: 'TKT-7' },
        'f.priority': { type: 'number_input', value: '2' },
        'f.is_urgent': { type: 'checkboxes', selected_options: [{ value: 'true' }] },
        'f.due': { type: 'datepicker', selected_date: '2026-12-24' },
        'f.team': { type: 'static_select', selected_option: { value: 'backend' } },
      },
      {
        values: {
          ticket_id: 'TKT-7',
          priority: 2,
          is_urgent: true,
          due: '2026-12-24',
          team: 'backend',
        },
      },
    ],
    [
      'edit.tool_args',
      ['number_input', 'checkboxes'],
      { 'a.limit': { type: 'number_input', value: 'many' } },
      'a.limit',
      {
        'a.limit': { type: 'number_input', value: '50' },
        'a.dry_run': { type: 'checkboxes', selected_options: [] },
      },
      { args: { table: 'orders', limit: 50, dry_run: false } },
    ],
  ] as const)(
    '%s: a modal with native inputs, errors shown in it, typed answer',
    async (kind, types, bad, badBlock, good, result) => {
      const before = cards().length;
      const id = await ask(KINDS[kind].content);
      await eventually(async () => cards().length > before);
      const message = cards().at(-1)!;
      const block = message.blocks.find((b) => String(b.block_id ?? '').startsWith('hitl-ask-'))!;
      const button = (block.elements as Array<Record<string, unknown>>)[0]!;
      expect(String(button.action_id)).toMatch(/^hitl-open:/);

      const opened = fake.views.length;
      const tapBody = interactionForm(
        blockActionsPayload({ fake, message, button, blockId: String(block.block_id), user: ann }),
      );
      await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
        method: 'POST',
        headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, tapBody),
        body: tapBody,
      }).then((r) => r.arrayBuffer());
      await adapter.idle();
      expect(fake.views.length).toBe(opened + 1);
      const view = fake.views.at(-1)! as Record<string, any>;
      const elementTypes = (view.blocks as any[])
        .filter((b) => b.type === 'input')
        .map((b) => b.element.type);
      for (const t of types) expect(elementTypes, kind).toContain(t);

      const submit = async (values: Record<string, unknown>) => {
        const state = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { [k]: v }]));
        const payload = {
          type: 'view_submission',
          team: { id: fake.teamId, domain: 'fake' },
          user: { id: ann.id, username: 'ann', name: 'ann', team_id: fake.teamId },
          api_app_id: 'A0FAKEAPP',
          token: 'legacyVerificationToken0',
          trigger_id: '1.fake.trigger',
          view: {
            id: 'V0FAKE',
            team_id: fake.teamId,
            ...view,
            state: { values: state },
            hash: 'h',
          },
          response_urls: [],
        };
        const body = interactionForm(payload);
        const res = await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
          method: 'POST',
          headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
          body,
        });
        const text = await res.text();
        await adapter.idle();
        return { status: res.status, body: text ? JSON.parse(text) : null };
      };
      const refused = await submit(bad);
      expect(refused.body?.response_action, JSON.stringify(refused.body)).toBe('errors');
      expect(Object.keys(refused.body.errors)).toContain(badBlock);
      expect((await view_(id)).status).toBe('pending');

      const accepted = await submit(good);
      expect(accepted).toEqual({ status: 200, body: null });
      expect(await view_(id, true)).toMatchObject({ kind, status: 'completed', answer: result });
    },
  );
});

describe('asks answered by a plain button', () => {
  it.each([
    ['approval.binary', 'reject', { decision: 'reject' }],
    ['context.confirm', 'confirm', { confirmed: true }],
  ] as const)('%s: the %s button gives the typed answer', async (kind, action, result) => {
    const before = cards().length;
    const id = await ask(KINDS[kind].content);
    await eventually(async () => cards().length > before);
    const message = cards().at(-1)!;
    const found = findButton(message, (b) => String(b.value ?? '').endsWith(`:${action}`));
    expect(found, JSON.stringify(message.blocks)).not.toBeNull();
    const body = interactionForm(blockActionsPayload({ fake, message, ...found!, user: ann }));
    await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
      method: 'POST',
      headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
      body,
    }).then((r) => r.arrayBuffer());
    await adapter.idle();
    expect(await view_(id, true)).toMatchObject({ kind, status: 'completed', answer: result });
  });
});
