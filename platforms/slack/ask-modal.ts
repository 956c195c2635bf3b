/**
 * Asks that need typing (freetext, form, edited draft, tool args) as a Slack modal: the card shows
 * an "Answer…" button, the tap opens the modal (views.open within the trigger window), and the
 * view_submission's state is the answer. A refused answer stays in the modal with Slack's
 * `response_action: "errors"` beside the field. Pure: no I/O.
 */
import type { types } from '@slack/bolt';
import type { AdapterAskButtons, AdapterStepStrings } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { AskContent } from '../../src/asks/content.ts';
import { protocolOf } from '../../src/asks/protocol.ts';
import type { Card } from '../../src/render/card.ts';

/** action_id / value of the "Answer…" button: `hitl-open:<key>`. */
export const SLACK_OPEN_PREFIX = 'hitl-open:';
/** callback_id of the modal: `hitl-ask:<key>:<action>`. */
export const SLACK_MODAL_PREFIX = 'hitl-ask:';
/** Slack's limits: 100 blocks in a modal, 3000 characters in a plain_text_input, 2000 in a label. */
const MODAL_MAX_BLOCKS = 100;
const INPUT_MAX = 3000;
const LABEL_MAX = 2000;
const TITLE_MAX = 24;

type FitText = (raw: string, max: number) => string;
type Block = types.KnownBlock;

const plain = (fitText: FitText, text: string, max: number) => ({
  type: 'plain_text' as const,
  text: fitText(text, max) || ' ',
});

/**
 * Whether this kind is answered in a modal (approval.modify: its edits; its buttons still decide
 * without edits).
 */
export function isModalKind(c: AskContent): boolean {
  return (
    (c.type === 'context' && (c.sub_type === 'freetext' || c.sub_type === 'form')) ||
    c.type === 'edit' ||
    (c.type === 'approval' && c.sub_type === 'modify')
  );
}

/** The "Answer…" button ("Edit…" for an approval) for a card whose ask is answered in a modal. */
export function openButton(
  card: Pick<Card, 'key' | 'ask'>,
  words: AdapterAskButtons = stringsOf(null).asks.buttons,
): types.Button {
  const edit = card.ask?.content.type === 'approval';
  return {
    type: 'button',
    text: { type: 'plain_text', text: edit ? words.edit : words.answer, emoji: true },
    action_id: `${SLACK_OPEN_PREFIX}${card.key}`,
    value: `${SLACK_OPEN_PREFIX}${card.key}`,
    style: 'primary',
  };
}

type FieldType = 'STRING' | 'NUMBER' | 'BOOLEAN' | 'DATE' | 'DROPDOWN';

function element(
  fitText: FitText,
  id: string,
  type: FieldType,
  value: unknown,
  o: { multiline?: boolean; options?: string[]; placeholder?: string | undefined },
): types.InputBlockElement | null {
  const ph = o.placeholder ? { placeholder: plain(fitText, o.placeholder, 150) } : {};
  switch (type) {
    case 'STRING': {
      if (typeof value === 'string' && value.length > INPUT_MAX) return null;
      return {
        type: 'plain_text_input',
        action_id: id,
        multiline: !!o.multiline,
        max_length: INPUT_MAX,
        ...(typeof value === 'string' && value !== '' ? { initial_value: value } : {}),
        ...ph,
      };
    }
    case 'NUMBER':
      return {
        type: 'number_input',
        action_id: id,
        is_decimal_allowed: true,
        ...(typeof value === 'number' ? { initial_value: String(value) } : {}),
        ...ph,
      };
    case 'BOOLEAN': {
      const yes = { text: plain(fitText, 'Yes', 75), value: 'true' };
      return {
        type: 'checkboxes',
        action_id: id,
        options: [yes],
        ...(value === true ? { initial_options: [yes] } : {}),
      };
    }
    case 'DATE':
      return {
        type: 'datepicker',
        action_id: id,
        ...(typeof value === 'string' && value ? { initial_date: value } : {}),
      };
    case 'DROPDOWN': {
      const options = o.options ?? [];
      if (options.length === 0 || options.length > 100) return null;
      return {
        type: 'static_select',
        action_id: id,
        options: options.map((v) => ({ text: plain(fitText, v, 75), value: v.slice(0, 150) })),
      };
    }
  }
}

function input(
  fitText: FitText,
  id: string,
  label: string,
  el: types.InputBlockElement | null,
  optional: boolean,
): types.InputBlock | null {
  if (!el) return null;
  return {
    type: 'input',
    block_id: id,
    label: plain(fitText, label, LABEL_MAX),
    element: el,
    optional,
  };
}

type Blocks = Array<Block | null>;

/** approval.modify: the fields (as a form's, under `f.`) and the decision, which the submission carries. */
function modifyBlocks(c: Extract<AskContent, { sub_type: 'modify' }>, fitText: FitText): Blocks {
  const blocks: Blocks = c.modifiable.map((f) =>
    input(
      fitText,
      `f.${f.key}`,
      f.label,
      element(fitText, `f.${f.key}`, f.type, f.type === 'DROPDOWN' ? undefined : f.value, {
        options: f.type === 'DROPDOWN' ? (f.value as string[]) : undefined,
      }),
      true,
    ),
  );
  const choices = c.choices.map((x) => ({
    text: plain(fitText, x.impact_hint ? `${x.label} (${x.impact_hint})` : x.label, 75),
    value: x.key,
  }));
  const radio = { type: 'radio_buttons' as const, action_id: 'decision', options: choices };
  blocks.push(input(fitText, 'decision', 'Decision', radio, false));
  return blocks;
}

/** context.form: one input per field under `f.` (a BOOLEAN's unticked box is its "no"). */
function formBlocks(c: Extract<AskContent, { sub_type: 'form' }>, fitText: FitText): Blocks {
  return c.fields.map((f) =>
    input(
      fitText,
      `f.${f.key}`,
      f.label,
      element(fitText, `f.${f.key}`, f.type, undefined, {
        options: f.options,
        placeholder: f.placeholder,
      }),
      !f.required || f.type === 'BOOLEAN',
    ),
  );
}

/** edit.tool_args: the tool, read-only args as text, editable ones as typed inputs under `a.`. */
function toolArgsBlocks(
  c: Extract<AskContent, { sub_type: 'tool_args' }>,
  fitText: FitText,
): Blocks {
  const blocks: Blocks = [
    { type: 'context', elements: [plain(fitText, `Tool: ${c.tool_name || '(unnamed)'}`, 3000)] },
  ];
  for (const a of c.args)
    blocks.push(
      a.editable
        ? input(
            fitText,
            `a.${a.key}`,
            a.label,
            element(fitText, `a.${a.key}`, a.type, a.value, {}),
            true,
          )
        : {
            type: 'section',
            text: plain(fitText, `${a.label} (read-only): ${JSON.stringify(a.value)}`, 3000),
          },
    );
  return blocks;
}

/** The input blocks of a modal kind (a null where Slack cannot hold a field). */
function kindBlocks(c: AskContent, fitText: FitText): Blocks {
  const text = (id: string, label: string, value: string, placeholder?: string) =>
    input(
      fitText,
      id,
      label,
      element(fitText, id, 'STRING', value, { multiline: true, placeholder }),
      false,
    );
  if (c.type === 'approval' && c.sub_type === 'modify') return modifyBlocks(c, fitText);
  if (c.type === 'context' && c.sub_type === 'freetext')
    return [text('value', c.input.label, '', c.input.placeholder)];
  if (c.type === 'context' && c.sub_type === 'form') return formBlocks(c, fitText);
  if (c.type === 'edit' && c.sub_type === 'content') return [text('content', 'Draft', c.draft)];
  if (c.type === 'edit' && c.sub_type === 'tool_args') return toolArgsBlocks(c, fitText);
  return [];
}

/**
 * The modal for a card's ask, or null when the kind is not a modal kind or does not fit Slack's
 * limits (then the card keeps the review page). `metadata` goes back with the submission.
 */
export function modalView(
  card: Pick<Card, 'key' | 'ask'>,
  fitText: FitText,
  metadata = '',
  words: AdapterStepStrings = stringsOf(null).asks.steps,
): types.ModalView | null {
  const c = card.ask?.content;
  if (!c || !isModalKind(c)) return null;
  const blocks: Blocks = [
    { type: 'section', text: plain(fitText, c.prompt, 3000) },
    ...kindBlocks(c, fitText),
  ];
  // A field Slack cannot hold (too long, too many options) sends the person to the review page.
  if (blocks.some((b) => b === null) || blocks.length > MODAL_MAX_BLOCKS) return null;
  return {
    type: 'modal',
    callback_id: `${SLACK_MODAL_PREFIX}${card.key}:submit`,
    title: plain(fitText, words.formTitle, TITLE_MAX),
    submit: plain(fitText, words.submit, TITLE_MAX),
    close: plain(fitText, words.cancel, TITLE_MAX),
    private_metadata: metadata,
    blocks: blocks as Block[],
  };
}

type StateValue = {
  type?: string;
  value?: string | null;
  selected_date?: string | null;
  selected_option?: { value?: string } | null;
  selected_options?: Array<{ value?: string }>;
};

/** One state value as the typed value the ask wants (numbers as numbers, checkboxes as booleans). */
function typedValue(v: StateValue | undefined): unknown {
  if (!v) return undefined;
  switch (v.type) {
    case 'number_input': {
      if (v.value === null || v.value === undefined || v.value === '') return undefined;
      const n = Number(v.value);
      return Number.isFinite(n) ? n : v.value;
    }
    case 'checkboxes':
      return (v.selected_options ?? []).length > 0;
    case 'datepicker':
      return v.selected_date ?? undefined;
    case 'static_select':
    case 'radio_buttons':
      return v.selected_option?.value ?? undefined;
    default:
      return v.value === null ? undefined : v.value;
  }
}

/** The answer data in a view_submission's `view.state.values` for an ask. */
export function modalData(c: AskContent, state: unknown): Record<string, unknown> {
  const values = ((state as { values?: unknown } | undefined)?.values ?? {}) as Record<
    string,
    Record<string, StateValue>
  >;
  const read = (id: string) => typedValue(values[id]?.[id]);
  const collect = (prefix: string, keys: string[]) => {
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      const v = read(`${prefix}${k}`);
      if (v !== undefined) out[k] = v;
    }
    return out;
  };
  if (c.type === 'approval' && c.sub_type === 'modify') {
    const decision = read('decision');
    return {
      ...(decision !== undefined ? { decision } : {}),
      values: collect(
        'f.',
        c.modifiable.map((f) => f.key),
      ),
    };
  }
  if (c.type === 'context' && c.sub_type === 'freetext') return { value: read('value') ?? '' };
  if (c.type === 'context' && c.sub_type === 'form')
    return {
      values: collect(
        'f.',
        c.fields.map((f) => f.key),
      ),
    };
  if (c.type === 'edit' && c.sub_type === 'content') return { content: read('content') ?? '' };
  if (c.type === 'edit' && c.sub_type === 'tool_args')
    return {
      args: collect(
        'a.',
        c.args.filter((a) => a.editable).map((a) => a.key),
      ),
    };
  return {};
}

/**
 * The protocol action a modal's answer is submitted with: an approval's decision is the action
 * when its choices are approve / reject; otherwise the modal's own (`submit`).
 */
export function modalAction(c: AskContent, data: Record<string, unknown>, own: string): string {
  if (c.type !== 'approval' || typeof data.decision !== 'string') return own;
  return protocolOf(c).type === 'approval' ? data.decision : own;
}

/** Issues of a refused answer as Slack's `errors` (block_id -> message) for the modal's fields. */
export function modalErrors(
  issues: Array<{ path: string; message: string }>,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const i of issues) {
    const m = /^data\.(?:(values|args)\.([^.]+)|(value|content|decision))/.exec(i.path);
    if (!m) continue;
    const block = m[3] ?? `${m[1] === 'values' ? 'f' : 'a'}.${m[2]}`;
    errors[block] ??= i.message.slice(0, 150);
  }
  return errors;
}

/** A tap on an "Answer…" button: whose ask, the trigger to open the modal with, where the card is. */
export interface OpenRequest {
  key: string;
  triggerId: string;
  userId: string;
  channel: string | null;
  ts: string | null;
}

/** Reads a block_actions payload as an "Answer…" tap; null when it is something else. */
export function openRequest(body: unknown): OpenRequest | null {
  const p = body as {
    type?: unknown;
    actions?: Array<{ action_id?: unknown }>;
    trigger_id?: unknown;
    user?: { id?: unknown };
    channel?: { id?: unknown };
    container?: { channel_id?: unknown; message_ts?: unknown };
  } | null;
  if (p?.type !== 'block_actions') return null;
  const id = p.actions?.[0]?.action_id;
  if (typeof id !== 'string' || !id.startsWith(SLACK_OPEN_PREFIX)) return null;
  const key = id.slice(SLACK_OPEN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(key) || typeof p.trigger_id !== 'string') return null;
  if (typeof p.user?.id !== 'string') return null;
  const channel = p.channel?.id ?? p.container?.channel_id;
  const ts = p.container?.message_ts;
  return {
    key,
    triggerId: p.trigger_id,
    userId: p.user.id,
    channel: typeof channel === 'string' ? channel : null,
    ts: typeof ts === 'string' ? ts : null,
  };
}

/** A modal's callback_id as case key and action; null when it is not an ask modal. */
export function parseCallbackId(id: unknown): { key: string; action: string } | null {
  const m =
    typeof id === 'string' ? /^hitl-ask:([A-Za-z0-9_-]{1,32}):([a-z_]{1,32})$/.exec(id) : null;
  return m ? { key: m[1]!, action: m[2]! } : null;
}
