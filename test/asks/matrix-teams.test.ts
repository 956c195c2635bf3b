/**
 * The matrix row for Teams: each of the ten kinds end to end against the fake Bot Connector. The
 * card the fake received carries the kind's native Adaptive Card inputs; the person's input comes
 * back as Teams sends it (an `adaptiveCard/action` invoke whose `action.data` holds every input's
 * value as a string, merged with the button's data); a bad answer is answered with the same card,
 * the values kept and the problem under the field, with nothing recorded; a good one comes back
 * typed from /wait. The Action.Submit fallback of older clients carries the same inputs.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeamsAdapter } from '../../platforms/teams/index.ts';
import { conversationKey, parsePayload } from '../../platforms/teams/parse.ts';
import { TEAMS_NOTICE_BLOCK_ID } from '../../platforms/teams/render.ts';
import type { PlatformAdapter } from '../../src/adapter.ts';
import type { AskKind } from '../../src/asks/content.ts';
import { RelayClient } from '../../src/client/relay-client.ts';
import { tinyServer } from '../client/helpers.ts';
import { adaptiveCardOf, FakeTeamsConnector } from '../fakes/teams-connector.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import {
  channelId,
  executeInvoke,
  installActivity,
  instantClock,
  submitMessage,
  testConfig,
} from '../platforms/teams/helpers.ts';
import { KINDS } from './fixtures.ts';

type Node = Record<string, any>;

let relay: RelayHandle;
let fake: FakeTeamsConnector;
let adapter: PlatformAdapter;
let hook: Awaited<ReturnType<typeof tinyServer>>;
/** notify_url deliveries, as the agent's webhook received them. */
const notified: any[] = [];
const conversation = channelId();
const target = `teams:${conversationKey(conversation)}`;
const ann = { id: '29:1ann-9e52142b5e5e4d7b', name: 'Ann Example' };
/** The relay's clock runs with real time, plus what a test skips ahead. */
let skipped = 0;

async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await request(`${relay.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  hook = await tinyServer((_req, body, res) => {
    notified.push(JSON.parse(body.toString('utf8')));
    res.writeHead(200).end();
  });
  fake = await FakeTeamsConnector.start();
  adapter = createTeamsAdapter(testConfig(), instantClock());
  relay = await startRelay({ adapters: [adapter], now: () => Date.now() + skipped });
  const installed = await post('/api/messages', installActivity(fake.serviceUrl, conversation));
  expect(installed.status).toBe(200);
});
afterAll(async () => {
  await relay?.stop();
  await adapter?.stop();
  await fake?.close();
  await hook?.close();
});

/** The case cards in the channel, oldest first (the welcome message is text). */
const cards = () =>
  fake
    .conversation(conversation)
    .filter((a) => a.replyToId === null && adaptiveCardOf(a.versions[0]));

/** Every element of a card body, containers walked. */
function elements(card: Node | undefined): Node[] {
  const out: Node[] = [];
  const walk = (nodes: unknown) => {
    for (const n of (Array.isArray(nodes) ? nodes : []) as Node[]) {
      out.push(n);
      walk(n.items);
    }
  };
  walk(card?.body);
  return out;
}

const inputs = (card: Node | undefined) =>
  elements(card).filter((e) => String(e.type).startsWith('Input.'));

async function ask(
  content: unknown,
): Promise<{ id: string; activityId: string; card: Node; token: string }> {
  const before = cards().length;
  const res = await post('/v1/asks', { target, content });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await eventually(async () => cards().length > before);
  const activity = cards().at(-1)!;
  return {
    id: res.body.relay.id,
    activityId: activity.id,
    card: adaptiveCardOf(activity.versions.at(-1)) as Node,
    token: res.body.hitl.submit_token,
  };
}

async function view(id: string, wait = false): Promise<any> {
  const res = await request(`${relay.url}/v1/asks/${id}${wait ? '/wait?timeout=10' : ''}`);
  return res.body.json();
}

/**
 * Taps the Action.Execute button whose action is `action` (and, for per-choice buttons, whose data
 * carries `decision`) with `values` as the card's inputs, as Teams sends them: every input of the
 * card present (empty ones as ""), merged into the button's data.
 */
async function execute(
  card: Node,
  activityId: string,
  action: string,
  values: Record<string, string>,
  decision?: string,
): Promise<any> {
  const button = (card.actions as Node[]).find(
    (a) =>
      a.type === 'Action.Execute' &&
      parsePayload(a.data?.hitl)?.action === action &&
      (decision === undefined || a.data['hitl-ask.decision'] === decision),
  );
  expect(button, `${action} button in ${JSON.stringify(card.actions)}`).toBeDefined();
  const invoke = executeInvoke(fake.serviceUrl, conversation, activityId, button!.data.hitl, ann);
  const data: Node = { ...button!.data };
  for (const input of inputs(card)) data[input.id] = values[input.id] ?? input.value ?? '';
  invoke.value = {
    action: { type: 'Action.Execute', id: button!.id, verb: button!.verb, data },
    trigger: 'manual',
  };
  const res = await post('/api/messages', invoke);
  expect(res.status).toBe(200);
  return res.body;
}

const noticeOf = (answer: any) =>
  elements(answer?.value).find((b) => b.id === TEAMS_NOTICE_BLOCK_ID)?.text ?? null;

interface Cell {
  /** Input types the card must carry (native widgets). */
  widgets: string[];
  /** The button a good answer is sent with, and its choice (per-choice buttons). */
  action: string;
  decision?: string;
  /** Input id suffix -> value, as Teams sends them. */
  bad: Record<string, string> | null;
  /** The input under which the problem is shown. */
  badInput?: string;
  good: Record<string, string>;
}

const P = 'hitl-ask.';
const CELLS: Record<AskKind, Cell> = {
  'approval.binary': { widgets: [], action: 'approve', bad: null, good: {} },
  'approval.modify': {
    widgets: ['Input.Number', 'Input.Text', 'Input.ChoiceSet'],
    action: 'approve',
    bad: { 'm.N.amount': 'lots' },
    badInput: 'm.N.amount',
    good: { 'm.N.amount': '45', 'm.S.note': '' },
  },
  'decision.single': {
    widgets: ['Input.ChoiceSet'],
    action: 'select',
    bad: { one: '' },
    badInput: 'one',
    good: { one: 'staging' },
  },
  'decision.multi': {
    widgets: ['Input.ChoiceSet'],
    action: 'select',
    bad: { many: 'infra,backend,frontend' },
    badInput: 'many',
    good: { many: 'backend,infra' },
  },
  'decision.rank': {
    widgets: ['Input.ChoiceSet', 'Input.ChoiceSet', 'Input.ChoiceSet'],
    action: 'submit',
    bad: { 'rank.0': 'push', 'rank.1': 'push', 'rank.2': 'sms' },
    badInput: 'rank',
    good: { 'rank.0': 'push', 'rank.1': 'email', 'rank.2': 'sms' },
  },
  'context.freetext': {
    widgets: ['Input.Text'],
    action: 'submit',
    bad: { value: '   ' },
    badInput: 'value',
    good: { value: 'A full refund.' },
  },
  'context.form': {
    widgets: ['Input.Text', 'Input.Number', 'Input.Toggle', 'Input.Date', 'Input.ChoiceSet'],
    action: 'submit',
    bad: { 'f.S.ticket_id': '', 'f.N.priority': 'high', 'f.O.team': 'infra' },
    badInput: 'f.S.ticket_id',
    good: {
      'f.S.ticket_id': 'TKT-123',
      'f.N.priority': '2',
      'f.B.is_urgent': 'true',
      'f.D.due': '2026-12-01',
      'f.O.team': 'infra',
    },
  },
  'context.confirm': { widgets: [], action: 'confirm', bad: null, good: {} },
  'edit.content': {
    widgets: ['Input.Text'],
    action: 'submit',
    bad: { content: ' ' },
    badInput: 'content',
    good: { content: 'Hi Jane,\n\nThank you!\n\nBest, Support' },
  },
  'edit.tool_args': {
    widgets: ['Input.Number', 'Input.Toggle'],
    action: 'submit',
    bad: { 'a.N.limit': 'many' },
    badInput: 'a.N.limit',
    good: { 'a.N.limit': '500', 'a.B.dry_run': 'false' },
  },
};

const withPrefix = (values: Record<string, string>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`${P}${k}`, v]));

describe.each(Object.keys(CELLS) as AskKind[])('%s on Teams', (kind) => {
  const cell = CELLS[kind];
  const fx = KINDS[kind];

  it('native inputs, bad answer refused on the card with nothing recorded, typed answer', async () => {
    // The agent asks with the TypeScript client (which waits for the answer) and a notify_url.
    const before = cards().length;
    const client = new RelayClient({ relayUrl: relay.url, waitChunkSeconds: 5 });
    let id = '';
    const outcome = client.ask(fx.content as any, {
      target,
      notifyUrl: `${hook.url}/hook`,
      timeoutMs: 20_000,
      onCreated: (created) => {
        id = created.id;
      },
    });
    await eventually(async () => cards().length > before && id !== '');
    const activityId = cards().at(-1)!.id;
    const card = adaptiveCardOf(fake.activity(activityId)!.versions.at(-1)) as Node;
    const types = inputs(card).map((i) => i.type);
    expect(types, JSON.stringify(card.body)).toEqual(expect.arrayContaining(cell.widgets));
    expect(types.length).toBeGreaterThanOrEqual(cell.widgets.length);
    if (kind === 'context.freetext' || kind === 'edit.content')
      expect(inputs(card)[0]).toMatchObject({ isMultiline: true });
    if (kind === 'edit.content')
      expect(inputs(card)[0]!.value).toBe((fx.content as { draft: string }).draft);
    if (kind === 'decision.multi') expect(inputs(card)[0]).toMatchObject({ isMultiSelect: true });
    if (kind === 'decision.single') expect(inputs(card)[0]).toMatchObject({ style: 'expanded' });
    const created = await view(id);
    expect(created.status).toBe('pending');

    if (cell.bad) {
      const answer = await execute(card, activityId, cell.action, withPrefix(cell.bad));
      expect(answer.type).toBe('application/vnd.microsoft.card.adaptive');
      expect(String(noticeOf(answer))).toMatch(/not valid/i);
      const shown = elements(answer.value);
      // The problem sits right under the input it concerns, and the person's values are kept.
      const at = shown.findIndex(
        (e) =>
          e.id === `${P}${cell.badInput}` || (cell.badInput === 'rank' && e.id === `${P}rank.2`),
      );
      expect(at, JSON.stringify(shown)).toBeGreaterThanOrEqual(0);
      expect(shown[at + 1]).toMatchObject({ type: 'TextBlock', color: 'Attention' });
      for (const [k, v] of Object.entries(cell.bad)) {
        const input = shown.find((e) => e.id === `${P}${k}`);
        if (v.trim() === '') continue;
        // Input.Number holds numbers only: a forged non-number is not put back (its error is).
        if (input?.type === 'Input.Number') expect(input.value, k).toBeUndefined();
        else expect(input?.value, k).toBe(v);
      }
      const after = await view(id);
      expect(after.status).toBe('pending');
      expect(after.case.history.some((h: any) => h.kind === 'submit')).toBe(false);
      expect(after.case.history.some((h: any) => h.kind === 'tap_refused')).toBe(true);
    }

    await execute(card, activityId, cell.action, withPrefix(cell.good), cell.decision);
    const done = await view(id, true);
    expect(done).toMatchObject({ kind, status: 'completed', answer: fx.result });
    // The same typed answer reaches the client and the notify_url webhook.
    expect(await outcome).toMatchObject({ id, kind, status: 'completed', answer: fx.result });
    const sent = await eventually(async () => notified.find((n) => n.id === id && n.final));
    expect(sent).toMatchObject({ status: 'completed', result: { data: fx.result } });
    expect(done.case.submitted_by).toMatchObject({ platform_user_id: ann.id });
    // The card is edited to its final state: no inputs, no buttons left.
    await eventually(async () => {
      const last = adaptiveCardOf(fake.activity(activityId)!.versions.at(-1)) as Node;
      return (
        inputs(last).length === 0 &&
        !(last.actions as Node[]).some((a) => a.type === 'Action.Execute')
      );
    });
  });
});

describe('asks on Teams beyond the native cells', () => {
  it('an approval with its own choice keys: one button per choice carrying its decision', async () => {
    const { id, activityId, card, token } = await ask({
      type: 'approval',
      sub_type: 'binary',
      prompt: 'Ship it?',
      choices: [
        { key: 'ship', label: 'Ship', impact_hint: 'Goes live' },
        { key: 'hold', label: 'Hold' },
      ],
    });
    const buttons = (card.actions as Node[]).filter((a) => a.type === 'Action.Execute');
    expect(buttons.map((b) => [b.title, b.data['hitl-ask.decision']])).toEqual([
      ['Ship', 'ship'],
      ['Hold', 'hold'],
    ]);
    expect(JSON.stringify(card.body)).toContain('Goes live');
    // No secret reaches the platform.
    expect(JSON.stringify(fake.recordedRequests().map((r) => r.body))).not.toContain(token);
    await execute(card, activityId, 'submit', {}, 'hold');
    expect(await view(id, true)).toMatchObject({
      status: 'completed',
      answer: { decision: 'hold' },
    });
  });

  it('a ranking longer than the card holds selects for: only the review page, no Submit', async () => {
    const options = Array.from({ length: 21 }, (_, i) => ({ key: `o${i}`, label: `Option ${i}` }));
    const { card } = await ask({ type: 'decision', sub_type: 'rank', prompt: 'Rank', options });
    expect(inputs(card)).toHaveLength(0);
    const actions = card.actions as Node[];
    expect(actions.filter((a) => a.type === 'Action.Execute')).toHaveLength(0);
    expect(actions.find((a) => a.type === 'Action.OpenUrl')?.url).toMatch(/\/r\//);
  });

  it('an irreversible option: the card asks to confirm with the pick kept, a second tap confirms', async () => {
    const { id, activityId, card } = await ask(KINDS['decision.single'].content);
    expect(JSON.stringify(inputs(card)[0]!.choices)).toContain('Affects live users');
    const first = await execute(card, activityId, 'select', { [`${P}one`]: 'prod' });
    expect(String(noticeOf(first))).toMatch(/confirm|again/i);
    const shown = inputs(first.value);
    expect(shown[0]).toMatchObject({ id: `${P}one`, value: 'prod' });
    expect((await view(id)).status).toBe('pending');
    skipped += 2_000;
    // The person taps Submit on the card as the answer showed it: the pick is still there.
    await execute(first.value, activityId, 'select', {});
    expect(await view(id, true)).toMatchObject({
      status: 'completed',
      answer: { selected: 'prod' },
    });
  });

  it('older clients: Action.Submit carries the same inputs', async () => {
    const { id, activityId, card } = await ask(KINDS['context.form'].content);
    const button = (card.actions as Node[]).find((a) => a.type === 'Action.Execute')!;
    const message = submitMessage(fake.serviceUrl, conversation, activityId, button.data.hitl, ann);
    message.id = `f:${randomUUID()}`;
    message.value = {
      ...button.fallback.data,
      ...withPrefix({
        'f.S.ticket_id': 'TKT-9',
        'f.N.priority': '',
        'f.B.is_urgent': 'false',
        'f.D.due': '',
        'f.O.team': 'backend',
      }),
    };
    expect((await post('/api/messages', message)).status).toBe(200);
    expect(await view(id, true)).toMatchObject({
      status: 'completed',
      answer: { values: { ticket_id: 'TKT-9', is_urgent: false, team: 'backend' } },
    });
  });
});
