/**
 * The matrix row for Slack: each of the ten kinds end to end against the fake Slack Web API, the
 * input delivered as Slack delivers it. Decisions: selects in the message and a Submit button whose
 * block_actions payload carries `state.values`; a bad answer is told to that person ephemerally.
 * Typing kinds: an "Answer…" button whose tap opens a modal (views.open with the trigger), answered
 * by a view_submission; a bad answer stays in the modal (`response_action: "errors"`). Approvals
 * and confirmations: the plain buttons are the whole answer. Nothing is recorded for a bad answer;
 * the typed answer comes back from /wait. approval.modify: its buttons decide without edits, and
 * "Edit…" opens a modal with the fields and the decision.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSlackAdapter,
  SLACK_EVENTS_PATH,
  type SlackAdapter,
} from '../../platforms/slack/index.ts';
import type { AskKind } from '../../src/asks/content.ts';
import { RelayClient } from '../../src/client/relay-client.ts';
import { tinyServer } from '../client/helpers.ts';
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
import { KINDS } from './fixtures.ts';

type Json = Record<string, any>;

let relay: RelayHandle;
let fake: FakeSlack;
let adapter: SlackAdapter;
let hook: Awaited<ReturnType<typeof tinyServer>>;
/** notify_url deliveries, as the agent's webhook received them. */
const notified: any[] = [];
const ann = { id: 'U0ANN', name: 'ann' };
/** The relay's clock runs with real time, plus what a test skips ahead. */
let skipped = 0;

beforeAll(async () => {
  hook = await tinyServer((_req, body, res) => {
    notified.push(JSON.parse(body.toString('utf8')));
    res.writeHead(200).end();
  });
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
  relay = await startRelay({ adapters: [adapter], now: () => Date.now() + skipped });
});
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
  await hook?.close();
});

const cards = (): FakeSlackMessage[] =>
  fake.messages(SLACK_TEST_CHANNEL).filter((m) => m.blocks.length > 0);

/** POSTs a signed interaction payload as Slack does; the ack's body, if any. */
async function interact(payload: Json): Promise<{ status: number; body: any }> {
  const body = interactionForm(payload);
  const res = await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
    method: 'POST',
    headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
    body,
  });
  const text = await res.text();
  await adapter.idle();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The newest ephemeral message to ann since request `seq`, unescaped. */
const ephemeralSince = (seq: number) => {
  const e = fake.ephemerals.filter((x) => x.seq >= seq).at(-1);
  return e ? unescapeSlack(e.text) : null;
};

/** Submits the selects of the newest card with `picks` (action_id tail -> value(s)). */
async function submitSelects(message: FakeSlackMessage, picks: Json): Promise<string | null> {
  const block = message.blocks.find((b) => String(b.block_id ?? '').startsWith('hitl-ask-'))!;
  const elements = block.elements as Json[];
  const button = elements.find((e) => e.type === 'button')!;
  const state: Json = { [String(block.block_id)]: {} };
  const option = (v: string) => ({ text: { type: 'plain_text', text: v }, value: v });
  for (const el of elements.filter((e) => e.type !== 'button')) {
    const tail = String(el.action_id).split(':').slice(2).join(':');
    const picked = picks[tail];
    state[String(block.block_id)][el.action_id] =
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
  const before = fake.requests.length;
  await interact(payload);
  return ephemeralSince(before);
}

/** Taps "Answer…" and returns the modal Slack was asked to open. */
async function openModal(message: FakeSlackMessage): Promise<Json> {
  const found = findButton(message, (b) => String(b.action_id ?? '').startsWith('hitl-open:'));
  expect(found, JSON.stringify(message.blocks)).not.toBeNull();
  const opened = fake.views.length;
  await interact(blockActionsPayload({ fake, message, ...found!, user: ann }));
  expect(fake.views.length).toBe(opened + 1);
  return fake.views.at(-1) as Json;
}

/** A view_submission of `view` with `values` (block_id -> state value). */
function submitModal(view: Json, values: Json) {
  const state = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { [k]: v }]));
  return interact({
    type: 'view_submission',
    team: { id: fake.teamId, domain: 'fake' },
    user: { id: ann.id, username: 'ann', name: 'ann', team_id: fake.teamId },
    api_app_id: 'A0FAKEAPP',
    token: 'legacyVerificationToken0',
    trigger_id: '1.fake.trigger',
    view: { id: 'V0FAKE', team_id: fake.teamId, ...view, state: { values: state }, hash: 'h' },
    response_urls: [],
  });
}

/** Taps the plain button whose value ends with `:action`. */
async function tapButton(message: FakeSlackMessage, action: string) {
  const found = findButton(message, (b) => String(b.value ?? '').endsWith(`:${action}`));
  expect(found, JSON.stringify(message.blocks)).not.toBeNull();
  await interact(blockActionsPayload({ fake, message, ...found!, user: ann }));
}

type Cell =
  | { via: 'buttons'; action: string }
  | { via: 'selects'; widget: string; bad: Json; good: Json }
  | { via: 'modal'; widgets: string[]; bad: Json; badBlock: string; good: Json };

const text = (value: string) => ({ type: 'plain_text_input', value });
const CELLS: Record<AskKind, Cell> = {
  'approval.binary': { via: 'buttons', action: 'approve' },
  // The buttons decide without edits; "Edit…" opens the fields and the decision in a modal.
  'approval.modify': {
    via: 'modal',
    widgets: ['number_input', 'plain_text_input', 'static_select', 'radio_buttons'],
    bad: {
      'f.amount': { type: 'number_input', value: 'lots' },
      decision: { type: 'radio_buttons', selected_option: { value: 'approve' } },
    },
    badBlock: 'f.amount',
    good: {
      'f.amount': { type: 'number_input', value: '45' },
      'f.note': { type: 'plain_text_input', value: null },
      'f.reason': { type: 'static_select', selected_option: null },
      decision: { type: 'radio_buttons', selected_option: { value: 'approve' } },
    },
  },
  'decision.single': {
    via: 'selects',
    widget: 'static_select',
    bad: { one: 'qa' },
    good: { one: 'staging' },
  },
  'decision.multi': {
    via: 'selects',
    widget: 'multi_static_select',
    bad: { many: ['infra', 'backend', 'frontend'] },
    good: { many: ['backend', 'infra'] },
  },
  'decision.rank': {
    via: 'selects',
    widget: 'static_select',
    bad: { 'rank:0': 'push', 'rank:1': 'email' },
    good: { 'rank:0': 'push', 'rank:1': 'email', 'rank:2': 'sms' },
  },
  'context.freetext': {
    via: 'modal',
    widgets: ['plain_text_input'],
    bad: { value: text('  ') },
    badBlock: 'value',
    good: { value: text('A full refund.') },
  },
  'context.form': {
    via: 'modal',
    widgets: ['plain_text_input', 'number_input', 'checkboxes', 'datepicker', 'static_select'],
    bad: {
      'f.ticket_id': text('T'),
      'f.due': { type: 'datepicker', selected_date: '2026-02-30' },
      'f.team': { type: 'static_select', selected_option: { value: 'infra' } },
    },
    badBlock: 'f.due',
    good: {
      'f.ticket_id': text('TKT-123'),
      'f.priority': { type: 'number_input', value: '2' },
      'f.is_urgent': { type: 'checkboxes', selected_options: [{ value: 'true' }] },
      'f.due': { type: 'datepicker', selected_date: '2026-12-01' },
      'f.team': { type: 'static_select', selected_option: { value: 'infra' } },
    },
  },
  'context.confirm': { via: 'buttons', action: 'confirm' },
  'edit.content': {
    via: 'modal',
    widgets: ['plain_text_input'],
    bad: { content: text(' ') },
    badBlock: 'content',
    good: { content: text('Hi Jane,\n\nThank you!\n\nBest, Support') },
  },
  'edit.tool_args': {
    via: 'modal',
    widgets: ['number_input', 'checkboxes'],
    bad: { 'a.limit': { type: 'number_input', value: 'many' } },
    badBlock: 'a.limit',
    good: {
      'a.limit': { type: 'number_input', value: '500' },
      'a.dry_run': { type: 'checkboxes', selected_options: [] },
    },
  },
};

async function ask(content: unknown): Promise<{ id: string; message: FakeSlackMessage }> {
  const before = cards().length;
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `slack:${SLACK_TEST_CHANNEL}`, content }),
  });
  const body = (await res.body.json()) as any;
  expect(res.statusCode, JSON.stringify(body)).toBe(202);
  await eventually(async () => cards().length > before);
  return { id: body.relay.id, message: cards().at(-1)! };
}

async function view(id: string, wait = false): Promise<any> {
  const res = await request(`${relay.url}/v1/asks/${id}${wait ? '/wait?timeout=10' : ''}`);
  return res.body.json();
}

async function nothingRecorded(id: string) {
  const now = await view(id);
  expect(now.status).toBe('pending');
  expect(now.case.history.some((h: any) => h.kind === 'submit')).toBe(false);
  expect(now.case.history.some((h: any) => h.kind === 'tap_refused')).toBe(true);
}

describe.each(Object.keys(CELLS) as AskKind[])('%s in Slack', (kind) => {
  const cell = CELLS[kind];
  const fx = KINDS[kind];

  it(`native ${cell.via}, bad answer refused natively with nothing recorded, typed answer`, async () => {
    // The agent asks with the TypeScript client (which waits for the answer) and a notify_url.
    const before = cards().length;
    let id = '';
    const outcome = new RelayClient({ relayUrl: relay.url, waitChunkSeconds: 5 }).ask(
      fx.content as any,
      {
        target: `slack:${SLACK_TEST_CHANNEL}`,
        notifyUrl: `${hook.url}/hook`,
        timeoutMs: 20_000,
        onCreated: (created) => {
          id = created.id;
        },
      },
    );
    await eventually(async () => cards().length > before && id !== '');
    const message = cards().at(-1)!;
    const result = fx.result;

    if (cell.via === 'buttons') {
      const values = message.blocks
        .filter((b) => b.type === 'actions')
        .flatMap((b) => (b.elements as Json[]).map((e) => String(e.value ?? e.url)));
      expect(
        values.some((v) => v.endsWith(`:${cell.action}`)),
        JSON.stringify(values),
      ).toBe(true);
      // The signed review page stays beside the buttons (where approval.modify's edits are made).
      expect(values.some((v) => /\/r\//.test(v))).toBe(true);
      await tapButton(message, cell.action);
    } else if (cell.via === 'selects') {
      const block = message.blocks.find((b) => String(b.block_id ?? '').startsWith('hitl-ask-'));
      expect(block, JSON.stringify(message.blocks)).toBeDefined();
      expect((block!.elements as Json[]).map((e) => e.type)).toContain(cell.widget);
      expect(await submitSelects(message, cell.bad)).toMatch(/not valid/);
      await nothingRecorded(id);
      expect(await submitSelects(message, cell.good)).toBeNull();
    } else {
      const modal = await openModal(message);
      const types = (modal.blocks as Json[])
        .filter((b) => b.type === 'input')
        .map((b) => b.element.type);
      for (const t of cell.widgets) expect(types, kind).toContain(t);
      if (kind === 'context.freetext' || kind === 'edit.content')
        expect((modal.blocks as Json[]).find((b) => b.type === 'input')!.element.multiline).toBe(
          true,
        );
      const refused = await submitModal(modal, cell.bad);
      expect(refused.body?.response_action, JSON.stringify(refused.body)).toBe('errors');
      expect(Object.keys(refused.body.errors)).toContain(cell.badBlock);
      await nothingRecorded(id);
      expect(await submitModal(modal, cell.good)).toEqual({ status: 200, body: null });
    }

    const done = await view(id, true);
    expect(done).toMatchObject({ kind, status: 'completed', answer: result });
    // The same typed answer reaches the client and the notify_url webhook.
    expect(await outcome).toMatchObject({ id, kind, status: 'completed', answer: result });
    const sent = await eventually(async () => notified.find((n) => n.id === id && n.final));
    expect(sent).toMatchObject({ status: 'completed', result: { data: result } });
    expect(done.case.submitted_by).toMatchObject({ platform_user_id: ann.id });
    // The card is edited to its final state: no ask widgets left.
    await eventually(async () => {
      const last = cards().find((m) => m.ts === message.ts)!;
      return !last.blocks.some((b) => String(b.block_id ?? '').startsWith('hitl-ask-'));
    });
  });
});

describe('approval.modify in a Slack modal', () => {
  it('an irreversible decision keeps the modal open until a second Submit confirms it', async () => {
    const content = structuredClone(KINDS['approval.modify'].content) as Json;
    content.choices[0] = { ...content.choices[0], irreversible: true, impact_hint: 'Money leaves' };
    const { id, message } = await ask(content);
    const modal = await openModal(message);
    const decision = (modal.blocks as Json[]).find((b) => b.block_id === 'decision')!;
    expect(decision.element.options[0].text.text).toContain('Money leaves');
    const answer = {
      'f.amount': { type: 'number_input', value: '45' },
      decision: { type: 'radio_buttons', selected_option: { value: 'approve' } },
    };
    const first = await submitModal(modal, answer);
    expect(first.body).toMatchObject({ response_action: 'errors' });
    expect(first.body.errors.decision).toMatch(/confirm|again/i);
    expect((await view(id)).status).toBe('pending');
    // The confirming Submit counts once the person has had time to read the warning.
    skipped += 2_000;
    expect(await submitModal(modal, answer)).toEqual({ status: 200, body: null });
    expect(await view(id, true)).toMatchObject({
      status: 'completed',
      answer: { decision: 'approve', values: { amount: 45 } },
    });
  });
});

describe('an approval with its own choice keys on Slack', () => {
  it('draws one button per choice, and the tapped choice is the decision', async () => {
    // Was Details only: the choice buttons looked for a `submit` among the card's plain buttons,
    // where `submit` never is (it needs data).
    const content = {
      type: 'approval',
      sub_type: 'binary',
      prompt: 'Ship the release tonight?',
      choices: [
        { key: 'ship', label: 'Ship it', irreversible: false, impact_hint: null },
        { key: 'hold', label: 'Hold until Monday', irreversible: false, impact_hint: null },
      ],
    };
    const { id, message } = await ask(content);
    const labels = (b: Record<string, unknown>) => (b.text as { text?: string } | undefined)?.text;
    const hold = findButton(message, (b) => labels(b) === 'Hold until Monday');
    expect(hold, JSON.stringify(message.blocks)).not.toBeNull();
    expect(findButton(message, (b) => labels(b) === 'Ship it')).not.toBeNull();
    await interact(blockActionsPayload({ fake, message, ...hold!, user: ann }));
    expect(await view(id, true)).toMatchObject({
      status: 'completed',
      answer: { decision: 'hold' },
    });
  });
});
