/**
 * Asks in Telegram, the pure part: the inline keyboard rows of each kind, the callback data of the
 * ask buttons (`ha:<key>:<op>[:<n>]`, never a token; 64 bytes at most), and the steps of the
 * field-by-field flow (freetext, content, form, modify, tool_args: ask-steps.ts).
 *
 * Kinds: approval choices, single (one button per option), multi (toggles ✓ + Done), rank
 * (successive taps, Undo/Done) and confirm (the card's Confirm/Cancel) are buttons; text kinds,
 * forms and edits are answered one field at a time (ForceReply prompts; BOOLEAN, DROPDOWN and the
 * approval's decision as buttons). More options than TELEGRAM_ASK_MAX_OPTIONS: the review page.
 */
import type { InlineKeyboardButton } from 'grammy/types';
import type { AdapterAskStrings, AdapterStepStrings } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { AskContent } from '../../src/asks/content.ts';
import { answerAction } from '../../src/asks/inputs.ts';

/** English step words for callers without a context (tests, tools). */
const STEPS = stringsOf(null).asks.steps;

export type { FieldValue } from '../../src/asks/content.ts';

/** The protocol action an answer is submitted with (the relay checks it again). */
const typedAnswer = (content: AskContent, data: Record<string, unknown>) => ({
  action: answerAction(content, data),
  data,
});

/** Prefix of ask buttons (the card's plain buttons keep `hitl:<key>:<action>`). */
export const ASK_DATA_PREFIX = 'ha:';
/** Options drawn as buttons; more go to the review page (Telegram allows 100 buttons in all). */
export const TELEGRAM_ASK_MAX_OPTIONS = 40;
/** A button label of an option (clients cut long labels anyway). */
const LABEL_MAX = 60;

/**
 * Ops: c choice, p pick (single), t toggle (multi), r rank, u undo, d done (multi, rank),
 * f start the field flow, a accept tool args as they are, v a value button of the flow's current
 * step, k keep the step's current value, s skip an optional step, x a ranked place (no-op).
 */
export type AskOp = 'c' | 'p' | 't' | 'r' | 'u' | 'd' | 'f' | 'a' | 'v' | 'k' | 's' | 'x';
const OP = /^ha:([A-Za-z0-9_-]{1,32}):([cptrudfavksx])(?::(\d{1,3}))?$/;

/** The callback data of a tapped ask button, parsed. */
export interface AskCallback {
  key: string;
  op: AskOp;
  n: number | null;
}

export function askData(key: string, op: AskOp, n?: number): string {
  return `${ASK_DATA_PREFIX}${key}:${op}${n === undefined ? '' : `:${n}`}`;
}

export function parseAskData(data: string | undefined): AskCallback | null {
  const m = OP.exec(data ?? '');
  if (!m) return null;
  return { key: m[1]!, op: m[2] as AskOp, n: m[3] === undefined ? null : Number(m[3]) };
}

export const cut = (s: string, max = LABEL_MAX) =>
  s.length <= max ? s : `${s.slice(0, max - 1)}…`;

type Described = { label: string; irreversible?: boolean; impact_hint?: string | undefined };
/** A label with the irreversible mark and the impact hint beside it. */
export function describe(o: Described): string {
  const hint = o.impact_hint ? ` (${o.impact_hint})` : '';
  return cut(`${o.irreversible ? '⚠️ ' : ''}${o.label}${hint}`);
}

/** True when Telegram draws this ask natively (else the card keeps only its Details link). */
export function telegramDrawsAsk(content: AskContent): boolean {
  return content.type !== 'decision' || content.options.length <= TELEGRAM_ASK_MAX_OPTIONS;
}

/** Per-person state of a multi or rank: the option indexes picked or ranked so far, in order. */
export interface PickState {
  picked: number[];
}

type ButtonStyle = InlineKeyboardButton.CallbackButton['style'];
export const button = (
  text: string,
  data: string,
  style?: ButtonStyle,
): InlineKeyboardButton.CallbackButton => ({
  text,
  callback_data: data,
  ...(style ? { style } : {}),
});

/**
 * Bot API 10 button styles: what cannot be undone and a reject are red (danger), an approve green
 * (success); other choices keep the app's own style.
 */
function choiceStyle(o: { key: string; irreversible?: boolean }): ButtonStyle {
  if (o.irreversible || o.key === 'reject') return 'danger';
  return o.key === 'approve' ? 'success' : undefined;
}

/**
 * The ask's keyboard rows (above the card's own buttons): as posted (`state` null: nobody's picks,
 * which is what a group's shared keyboard always shows), or with one person's picks (a private chat).
 * Empty when Telegram cannot draw the kind or its buttons are the card's own (confirm).
 */
export function askRows(
  key: string,
  content: AskContent,
  state: PickState | null = null,
  words: AdapterAskStrings = stringsOf(null).asks,
): InlineKeyboardButton[][] {
  if (!telegramDrawsAsk(content)) return [];
  const b = words.buttons;
  switch (content.type) {
    case 'approval': {
      const rows = [
        content.choices.map((c, i) => button(describe(c), askData(key, 'c', i), choiceStyle(c))),
      ] as InlineKeyboardButton[][];
      if (content.sub_type === 'modify' && content.modifiable.length)
        rows.push([button(`✏️ ${b.editValues}`, askData(key, 'f'))]);
      return rows;
    }
    case 'decision':
      if (content.sub_type === 'single')
        return content.options.map((o, i) => [
          button(describe(o), askData(key, 'p', i), o.irreversible ? 'danger' : undefined),
        ]);
      return content.sub_type === 'multi'
        ? multiRows(key, content, state)
        : rankRows(key, content, state, b.undo);
    case 'context':
      if (content.sub_type === 'confirm') return [];
      return [
        [
          button(
            content.sub_type === 'form' ? `📝 ${b.fillIn}` : `✍️ ${b.answer}`,
            askData(key, 'f'),
          ),
        ],
      ];
    case 'edit':
      return content.sub_type === 'content'
        ? [
            [button(`✏️ ${b.editDraft}`, askData(key, 'f'))],
            // Telegram cannot prefill a reply: a short draft is one tap from the clipboard (a long
            // one is a tap-to-copy block in the edit prompt).
            ...copyRow(content.draft, b.copyDraft),
            [button(`✅ ${b.sendDraft}`, askData(key, 'a'))],
          ]
        : [
            [button(`✏️ ${b.editArguments}`, askData(key, 'f'))],
            [button(`✅ ${b.runArguments}`, askData(key, 'a'))],
          ];
  }
}

/** Telegram's copy_text button copies 1-256 characters. */
export const TELEGRAM_COPY_TEXT_MAX_CHARS = 256;

/** A "Copy the draft" button for a draft that fits copy_text, else nothing. */
function copyRow(draft: string, label: string): InlineKeyboardButton[][] {
  const length = Array.from(draft).length;
  if (length < 1 || length > TELEGRAM_COPY_TEXT_MAX_CHARS) return [];
  return [[{ text: `📋 ${label}`, copy_text: { text: draft } }]];
}

type Multi = Extract<AskContent, { sub_type: 'multi' }>;
type Rank = Extract<AskContent, { sub_type: 'rank' }>;

const limitsOf = (c: Multi) =>
  c.max_select === null ? `at least ${c.min_select}` : `${c.min_select}-${c.max_select}`;

/** Toggles (✅ for this person's picks) and Done. */
function multiRows(key: string, c: Multi, state: PickState | null): InlineKeyboardButton[][] {
  const picked = state?.picked ?? [];
  const rows = c.options.map((o, i) => [
    button(`${picked.includes(i) ? '✅' : '⬜'} ${describe(o)}`, askData(key, 't', i)),
  ]);
  const done = state
    ? `Done (${picked.length} chosen; ${limitsOf(c)})`
    : `Done (choose ${limitsOf(c)})`;
  rows.push([button(done, askData(key, 'd'))]);
  return rows;
}

/** This person's places so far in order, then what is left; Undo takes the last place back. */
function rankRows(
  key: string,
  c: Rank,
  state: PickState | null,
  undo: string,
): InlineKeyboardButton[][] {
  const picked = state?.picked ?? [];
  const rows = picked.map((i, place) => [
    button(`${place + 1}. ${cut(c.options[i]?.label ?? '?')}`, askData(key, 'x', i)),
  ]);
  c.options.forEach((o, i) => {
    if (!picked.includes(i)) rows.push([button(`➕ ${describe(o)}`, askData(key, 'r', i))]);
  });
  const done = state
    ? `Done (${picked.length}/${c.options.length})`
    : `Done (rank all ${c.options.length})`;
  rows.push([button(`↩️ ${undo}`, askData(key, 'u')), button(done, askData(key, 'd'))]);
  return rows;
}

/** Telegram's limit for a callback query answer (the toast only the tapper sees). */
const TOAST_MAX = 200;

/**
 * One person's picks so far, for the toast of their tap (only they see it): in a group this is
 * the only place their selection shows, as the shared keyboard cannot differ per person.
 */
export function pickSummary(
  content: AskContent,
  state: PickState,
  words: AdapterAskStrings = stringsOf(null).asks,
): string {
  if (content.type !== 'decision') return '';
  const labels = state.picked.map((i) => content.options[i]?.label ?? '?');
  const text =
    content.sub_type === 'multi'
      ? words.yourChoice(labels.length, limitsOf(content), labels.join(', ') || words.noneYet)
      : words.yourOrder(
          labels.length,
          content.options.length,
          labels.map((l, n) => `${n + 1}. ${l}`).join(' › ') || words.noneYet,
        );
  return cut(text, TOAST_MAX);
}

/** True when the card's own (protocol action) buttons are replaced by the ask's rows. */
export function askReplacesActions(content: AskContent): boolean {
  return telegramDrawsAsk(content) && content.type === 'approval';
}

/** The typed answer of a button tap on an ask (choice, pick, done, accept); null when none. */
export function buttonAnswer(
  content: AskContent,
  b: AskCallback,
  state: PickState,
): { action: string; data: Record<string, unknown> } | null {
  const typed = (answer: Record<string, unknown>) => typedAnswer(content, answer);
  if (content.type === 'approval' && b.op === 'c') {
    const choice = content.choices[b.n ?? -1];
    return choice ? typed({ decision: choice.key }) : null;
  }
  if (content.type === 'decision') {
    if (content.sub_type === 'single' && b.op === 'p') {
      const o = content.options[b.n ?? -1];
      return o ? typed({ selected: o.key }) : null;
    }
    if (b.op !== 'd') return null;
    const keys = state.picked.map((i) => content.options[i]?.key ?? '');
    return content.sub_type === 'multi' ? typed({ selected: keys }) : typed({ ranking: keys });
  }
  if (b.op !== 'a' || content.type !== 'edit') return null;
  return content.sub_type === 'content' ? typed({ content: content.draft }) : typed({ args: {} });
}

/** Applies a toggle / rank / undo to a person's state; null when the button does not fit. */
export function nextPickState(
  content: AskContent,
  b: AskCallback,
  state: PickState,
): PickState | null {
  if (content.type !== 'decision') return null;
  const n = b.n ?? -1;
  if ((b.op === 't' || b.op === 'r') && !content.options[n]) return null;
  if (b.op === 't' && content.sub_type === 'multi')
    return {
      picked: state.picked.includes(n) ? state.picked.filter((i) => i !== n) : [...state.picked, n],
    };
  if (content.sub_type !== 'rank') return null;
  if (b.op === 'r') return state.picked.includes(n) ? state : { picked: [...state.picked, n] };
  if (b.op === 'u') return { picked: state.picked.slice(0, -1) };
  return null;
}

/** What the person must see to answer (a confirm's statement, a draft, a tool's arguments). */
export function askLines(content: AskContent, words: AdapterStepStrings = STEPS): string[] {
  const show = (v: unknown) => (Array.isArray(v) ? v.join(' / ') : String(v));
  if (content.type === 'context' && content.sub_type === 'confirm') return [content.statement];
  if (content.type === 'edit' && content.sub_type === 'content') return [content.draft];
  if (content.type === 'edit')
    return [
      words.tool(content.tool_name),
      ...content.args.map(
        (a) => `${a.label}: ${show(a.value)}${a.editable ? '' : ` ${words.readOnly}`}`,
      ),
    ];
  if (content.type === 'approval' && content.sub_type === 'modify')
    return content.modifiable.map((f) => `${f.label}: ${show(f.value)}`);
  return [];
}
