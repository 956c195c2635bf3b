/**
 * The matrix row for Google Chat: each of the ten kinds end to end against the fake Google Chat.
 * The card the fake received carries the kind's native cards v2 input widgets; the person's input
 * comes back as Chat sends it (a CARD_CLICKED event whose `common.formInputs` holds each widget's
 * value by name, with the clicked button's parameters); a bad answer is answered with a private
 * message naming the problem and nothing recorded; a good one comes back typed from /wait, and the
 * card is edited to its final state with no inputs or buttons. A ranking keeps Details.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskKind } from '../../src/asks/content.ts';
import { CONFIRM_MIN_MS } from '../../src/tap/confirm-irreversible.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import {
  ALLOWED,
  buttonsOf,
  type GooglechatHarness,
  makeGooglechatHarness,
  paramsOf,
  SPACE,
  widgetsOf,
} from '../platforms/googlechat/harness.ts';
import { KINDS } from './fixtures.ts';

type Json = Record<string, any>;

let h: GooglechatHarness;
let relay: RelayHandle;

beforeAll(async () => {
  h = await makeGooglechatHarness();
  relay = await startRelay({ adapters: [h.adapter] });
  await h.attach!(relay.url);
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
});

async function ask(content: unknown): Promise<{ id: string; name: string; token: string }> {
  const before = (await h.messages(SPACE)).length;
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `googlechat:${SPACE}`, content }),
  });
  const body = (await res.body.json()) as Json;
  expect(res.statusCode, JSON.stringify(body)).toBe(202);
  const refs = await eventually(async () => {
    const all = await h.messages(SPACE);
    return all.length > before ? all : null;
  });
  return { id: body.relay.id, name: refs.at(-1)!.id, token: body.hitl.submit_token };
}

async function view(id: string, wait = false): Promise<Json> {
  const res = await request(`${relay.url}/v1/asks/${id}${wait ? '/wait?timeout=10' : ''}`);
  return (await res.body.json()) as Json;
}

/** The kind of each input widget of the message, in order (`selectionInput:RADIO_BUTTON`, ...). */
const widgetKinds = (name: string) =>
  widgetsOf(h.fake.message(name)!).flatMap((w) => {
    const kind = Object.keys(w)[0]!;
    if (!['textInput', 'selectionInput', 'dateTimePicker'].includes(kind)) return [];
    return [`${kind}:${w[kind].type}`];
  });

const text = (v: string) => ({ stringInputs: { value: [v] } });
const day = (iso: string) => ({
  dateInput: { msSinceEpoch: String(Date.parse(`${iso}T00:00:00Z`)) },
});

interface Cell {
  widgets: string[];
  action: string;
  decision?: string;
  bad: Json | null;
  /** What the private refusal names. */
  badSays?: RegExp;
  good: Json;
}

const CELLS: Partial<Record<AskKind, Cell>> = {
  'approval.binary': { widgets: [], action: 'approve', bad: null, good: {} },
  'approval.modify': {
    widgets: ['textInput:SINGLE_LINE', 'textInput:SINGLE_LINE', 'selectionInput:DROPDOWN'],
    action: 'approve',
    bad: { 'i.N.amount': text('lots') },
    badSays: /Refund Amount/,
    good: { 'i.N.amount': text('45'), 'i.S.note': text('') },
  },
  'decision.single': {
    widgets: ['selectionInput:RADIO_BUTTON'],
    action: 'select',
    bad: { one: { stringInputs: { value: ['nowhere'] } } },
    badSays: /not valid|must be one of/i,
    good: { one: text('staging') },
  },
  'decision.multi': {
    widgets: ['selectionInput:CHECK_BOX'],
    action: 'select',
    bad: { many: { stringInputs: { value: ['infra', 'backend', 'frontend'] } } },
    badSays: /at most 2|not valid/i,
    good: { many: { stringInputs: { value: ['backend', 'infra'] } } },
  },
  'context.freetext': {
    widgets: ['textInput:MULTIPLE_LINE'],
    action: 'submit',
    bad: { 'i.S.value': text('   ') },
    badSays: /Customer preference|not valid/i,
    good: { 'i.S.value': text('A full refund.') },
  },
  'context.form': {
    widgets: [
      'textInput:SINGLE_LINE',
      'textInput:SINGLE_LINE',
      'selectionInput:SWITCH',
      'dateTimePicker:DATE_ONLY',
      'selectionInput:DROPDOWN',
    ],
    action: 'submit',
    bad: { 'i.S.ticket_id': text(''), 'i.N.priority': text('high'), 'i.O.team': text('infra') },
    badSays: /Ticket ID|Priority/,
    good: {
      'i.S.ticket_id': text('TKT-123'),
      'i.N.priority': text('2'),
      'i.B.is_urgent': text('true'),
      'i.D.due': day('2026-12-01'),
      'i.O.team': text('infra'),
    },
  },
  'context.confirm': { widgets: [], action: 'confirm', bad: null, good: {} },
  'edit.content': {
    widgets: ['textInput:MULTIPLE_LINE'],
    action: 'submit',
    bad: { 'i.S.content': text(' ') },
    badSays: /not valid|empty/i,
    good: { 'i.S.content': text('Hi Jane,\n\nThank you!\n\nBest, Support') },
  },
  'edit.tool_args': {
    widgets: ['textInput:SINGLE_LINE', 'selectionInput:SWITCH'],
    action: 'submit',
    bad: { 'i.N.limit': text('many') },
    badSays: /Row Limit|not valid/i,
    good: { 'i.N.limit': text('500') },
  },
};

/** Typing, a date or a long list: the kind is answered in a dialog the card's button opens. */
const inDialog = (cell: Cell) =>
  cell.widgets.some((w) => /^(textInput|dateTimePicker)|DROPDOWN|MULTI_SELECT/.test(w));

/** The input widgets of a dialog body, as widgetKinds says them. */
const dialogKinds = (body: Json) =>
  (body.sections ?? [])
    .flatMap((x: Json) => x.widgets ?? [])
    .flatMap((w: Json) => {
      const kind = Object.keys(w)[0]!;
      if (!['textInput', 'selectionInput', 'dateTimePicker'].includes(kind)) return [];
      return [`${kind}:${w[kind].type}`];
    });

/**
 * One answer as the person gives it: a click on the card's button with its inputs, or a submit in
 * the dialog. Returns the notice (private message, or the dialog's message) and whether the dialog
 * stayed open.
 */
async function answer(
  name: string,
  cell: Cell,
  formInputs: Json,
  dialog: Json | null,
): Promise<{ notice: string | null; open: boolean; status?: string }> {
  const ref = { platform: 'googlechat', address: SPACE, id: name };
  if (dialog) {
    const done = await h.submitDialog({
      ref,
      dialog,
      action: cell.action,
      user: ALLOWED,
      formInputs,
    });
    if (!done || 'shown' in done) throw new Error('the dialog submit got no status');
    return { notice: done.message, open: done.open, status: done.status };
  }
  const res = await h.click({ ref, action: cell.action, user: ALLOWED, formInputs });
  expect(res.status).toBe(200);
  if (!res.made?.body.privateMessageViewer) return { notice: null, open: false };
  expect(res.made.body.privateMessageViewer).toEqual({ name: ALLOWED.id });
  return { notice: String(res.made.body.text), open: false };
}

describe.each(Object.keys(CELLS) as AskKind[])('%s on Google Chat', (kind) => {
  const cell = CELLS[kind]!;
  const fx = KINDS[kind];

  it('native widgets (in a dialog where it takes typing), a bad answer refused with nothing recorded, the typed answer', async () => {
    const { id, name, token } = await ask(fx.content);
    expect(JSON.stringify(h.fake.message(name)!.body)).not.toContain(token);
    let dialog: Json | null = null;
    if (inDialog(cell)) {
      // The card has no inputs, only the button that opens the dialog; the dialog has them all.
      expect(widgetKinds(name)).toEqual([]);
      const ref = { platform: 'googlechat', address: SPACE, id: name };
      const opened = await h.openDialog({ ref, user: ALLOWED });
      expect(opened.delivery.answer?.actionResponse?.type).toBe('DIALOG');
      dialog = opened.dialog;
      expect(dialog).not.toBeNull();
      expect(dialogKinds(dialog!)).toEqual(cell.widgets);
      expect(JSON.stringify(dialog)).not.toContain(token);
    } else expect(widgetKinds(name)).toEqual(cell.widgets);
    if (kind === 'edit.content') {
      const input = (dialog!.sections[0].widgets as Json[]).find((w) => w.textInput)!;
      expect(input.textInput.value).toBe((fx.content as { draft: string }).draft);
    }
    if (cell.bad) {
      const refused = await answer(name, cell, cell.bad, dialog);
      expect(refused.notice).toMatch(cell.badSays!);
      // A refused answer keeps the dialog open with the reason (INVALID_ARGUMENT).
      if (dialog) expect(refused).toMatchObject({ open: true, status: 'INVALID_ARGUMENT' });
      const after = await view(id);
      expect(after.status).toBe('pending');
      expect(after.case.history.some((e: Json) => e.kind === 'submit')).toBe(false);
    }
    const first = await answer(name, cell, cell.good, dialog);
    if (first.notice && /undone|again/i.test(first.notice)) {
      // An irreversible answer: the same person submits again once the warning has been up.
      if (dialog) expect(first.open).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, CONFIRM_MIN_MS));
      await answer(name, cell, cell.good, dialog);
    }
    const done = await view(id, true);
    expect(done).toMatchObject({ kind, status: 'completed', answer: fx.result });
    expect(done.case.submitted_by).toMatchObject({ platform_user_id: ALLOWED.id });
    await eventually(async () => {
      const m = h.fake.message(name)!;
      return widgetKinds(name).length === 0 && buttonsOf(m).every((b) => !b.onClick.action);
    });
  });
});

describe('asks on Google Chat beyond the native cells', () => {
  it('a ranking keeps Details: no inputs and no submit button, a link to the review page', async () => {
    const { name } = await ask(KINDS['decision.rank'].content);
    const m = h.fake.message(name)!;
    expect(widgetKinds(name)).toEqual([]);
    expect(buttonsOf(m).map((b) => b.onClick.openLink?.url ?? paramsOf(b).p)).toEqual([
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
    ]);
  });

  it('an approval with its own choice keys: one button per choice carrying its decision', async () => {
    const { id, name } = await ask({
      type: 'approval',
      sub_type: 'binary',
      prompt: 'Ship it?',
      choices: [
        { key: 'ship', label: 'Ship', impact_hint: 'Goes live' },
        { key: 'hold', label: 'Hold' },
      ],
    });
    const buttons = buttonsOf(h.fake.message(name)!).filter((b) => b.onClick.action);
    expect(buttons.map((b) => [b.text, paramsOf(b).d])).toEqual([
      ['Ship', 'ship'],
      ['Hold', 'hold'],
    ]);
    const ref = { platform: 'googlechat', address: SPACE, id: name };
    const res = await h.click({
      ref,
      action: 'submit',
      user: ALLOWED,
      button: (b) => paramsOf(b).d === 'hold',
    });
    expect(res.status).toBe(200);
    expect(await view(id, true)).toMatchObject({
      status: 'completed',
      answer: { decision: 'hold' },
    });
  });
});
