/**
 * What every chat adapter does the same way: answer a tap within the platform's window (or say
 * "Submitting…" and let the edited card show the outcome), take a redelivered event only once,
 * cut text to a platform limit, and speak in the relay's LOCALE. Platforms import this module
 * (it is on .dependency-cruiser.cjs CORE_SURFACE); it holds no platform knowledge.
 */

import { randomBytes } from 'node:crypto';
import type {
  AdapterAskStrings,
  AdapterBulkStrings,
  AdapterContext,
  AdapterPendingStrings,
  AdapterStepStrings,
  AdapterStrings,
  KeyValue,
  Tap,
  TapReply,
} from './adapter.ts';
import type { RepostButtonState } from './adapter-repost.ts';
import { englishOrdinal } from './adapter-words.ts';
import type { Logger } from './log.ts';
import { loadStrings, type Strings, t } from './render/templates.ts';

/** The adapter texts of `strings` (a loaded locale; default English). */
export function adapterStrings(strings: Strings = loadStrings('en')): AdapterStrings {
  const text = (key: string) => t(strings, `adapter.${key}`);
  return {
    submitting: text('submitting'),
    unknownButton: text('unknown_button'),
    tapFailed: text('tap_failed'),
    notAnswerable: text('not_answerable'),
    useDetails: text('use_details'),
    choiceInvalid: text('choice_invalid'),
    answerRecorded: text('answer_recorded'),
    notOurs: text('not_ours'),
    refusal: (reply, issues) => refusalText(strings, reply, issues),
    target: (target) => t(strings, 'adapter.target', { target }),
    welcome: (target, command) => t(strings, 'adapter.welcome', { target, command }),
    yourUserId: (id) => t(strings, 'adapter.your_user_id', { id }),
    unknownCommand: (command) => t(strings, 'adapter.unknown_command', { command }),
    alreadyDecided: (status) => t(strings, 'adapter.already_decided', { status }),
    asks: askStrings(strings),
    pending: pendingStrings(strings),
  };
}

/** `/pending`'s texts of `strings` (templates `adapter.pending`). */
function pendingStrings(strings: Strings): AdapterPendingStrings {
  const text = (key: string, view?: Record<string, unknown>) =>
    t(strings, `adapter.pending.${key}`, view);
  return {
    empty: (mine) => text(mine ? 'empty_mine' : 'empty'),
    header: (count, more, mine) => text(mine ? 'header_mine' : 'header', { count, more }),
    item: (i) => text('item', { ...i, prompt: i.prompt.replace(/\s+/g, ' ').trim() }),
    more: text('more'),
    card: text('card'),
    unavailable: text('unavailable'),
    privateFirst: (link) => text('private_first', { link }),
    sentPrivately: text('sent_privately'),
    privateUnreachable: (app) => text('private_unreachable', { app }),
    details: text('details'),
    bulk: bulkStrings(strings),
  };
}

/** The bulk decisions' texts of `strings` (templates `adapter.pending.bulk`). */
function bulkStrings(strings: Strings): AdapterBulkStrings {
  const text = (key: string, view?: Record<string, unknown>) =>
    t(strings, `adapter.pending.bulk.${key}`, view);
  const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
  return {
    all: (label, count) => text('all', { label, count }),
    confirmHeader: (label, count) => text('confirm_header', { label, count, one: count === 1 }),
    leftOut: text('left_out'),
    unlisted: text('unlisted'),
    skipped: (prompt, reason) => text('skipped', { prompt: flat(prompt), reason }),
    confirm: text('confirm'),
    cancel: text('cancel'),
    resultsHeader: (label, count) => text('results_header', { label, count, one: count === 1 }),
    result: (prompt, result, said) =>
      text('result', { prompt: flat(prompt), [result]: true, text: said }),
    nothing: text('nothing'),
    expired: text('expired'),
    reasons: {
      unlisted: text('reasons.unlisted'),
      noCard: text('reasons.no_card'),
      noAction: (action) => text('reasons.no_action', { action }),
    },
  };
}

/** `/pending` or `/pending mine` (the platform strips its own prefix or mention first); null otherwise. */
export function pendingCommand(text: string): { mine: boolean } | null {
  const m = /^\/?pending(?:@\S+)?(?:\s+(mine))?\s*$/i.exec(text.trim());
  return m ? { mine: !!m[1] } : null;
}

/** What a `/pending` "More" button asks for: which chat, whose list, and from where. */
export interface PendingPageState {
  address: string;
  user: string;
  mine: boolean;
  cursor: string;
}

/** How long a list button's state is kept: an hour, as long as a person reads a list. */
const BUTTON_STATE_TTL_MS = 3600_000;

/**
 * Keeps the state of one person's list button in the shared key-value store (any replica answers
 * it) under `<space>:<token>` and returns its payload `<prefix>:<token>`: short enough for
 * Telegram's 64 bytes whatever the state holds.
 */
export async function buttonPayload(
  kv: KeyValue,
  where: { prefix: string; space: string },
  state: { user: string },
): Promise<string> {
  const token = randomBytes(12).toString('base64url');
  await kv.set(`${where.space}:${token}`, JSON.stringify(state), BUTTON_STATE_TTL_MS);
  return `${where.prefix}:${token}`;
}

/**
 * The state of a list button, or null when the payload is not one of `where.prefix`, has lapsed,
 * or is pressed by someone else than the person whose list it is (a list is per person).
 */
export async function buttonStateOf<T extends { user: string }>(
  kv: KeyValue,
  where: { prefix: string; space: string },
  data: string | undefined,
  user: string,
): Promise<T | null> {
  const state = await buttonState<T>(kv, where, data);
  return state?.user === user ? state : null;
}

/** The state of a button of `where.prefix`, whoever presses it; null when not one or lapsed. */
async function buttonState<T>(
  kv: KeyValue,
  where: { prefix: string; space: string },
  data: string | undefined,
): Promise<T | null> {
  const m = new RegExp(`^${where.prefix}:([A-Za-z0-9_-]{16})$`).exec(data ?? '');
  const raw = m ? await kv.get(`${where.space}:${m[1]}`) : undefined;
  return raw ? (JSON.parse(raw) as T) : null;
}

const MORE = { prefix: 'hitlp', space: 'pending' } as const;

/** Keeps the state of a "More" button; its payload is `hitlp:<token>`. */
export const pendingPayload = (kv: KeyValue, state: PendingPageState): Promise<string> =>
  buttonPayload(kv, MORE, state);

/** The page a "More" button asks for, or null (not one, lapsed, or someone else's list). */
export const pendingPageOf = (
  kv: KeyValue,
  data: string | undefined,
  user: string,
): Promise<PendingPageState | null> => buttonStateOf<PendingPageState>(kv, MORE, data, user);

const REPOST = { prefix: 'hitlr', space: 'repost-button' } as const;

/** Keeps the state of a "Re-post" button; its payload is `hitlr:<token>`. */
export const repostPayload = (kv: KeyValue, state: RepostButtonState): Promise<string> =>
  buttonPayload(kv, REPOST, state);

/**
 * The press a "Re-post" payload stands for, or null when it is not one or has lapsed. Unlike a
 * list's other buttons it is not bound to the list's person: re-posting is harmless, and whoever
 * presses it is checked again by the relay (CardReposter.press), so a stranger gets nothing.
 */
export const repostOf = (
  kv: KeyValue,
  data: string | undefined,
): Promise<RepostButtonState | null> => buttonState<RepostButtonState>(kv, REPOST, data);

/**
 * A refused answer: the relay's text, then each problem it does not already state (the text of an
 * invalid answer names the first one), so a person reads every problem once.
 */
function refusalText(
  strings: Strings,
  reply: string,
  issues: ReadonlyArray<{ path: string; message: string; label?: string }>,
): string {
  const fields = issues
    .map((i) => ({ label: i.label ?? i.path, message: i.message }))
    .filter((i) => !reply.includes(`${i.label}: ${i.message}`))
    .slice(0, 5);
  return t(strings, 'adapter.refused_fields', { text: reply, fields });
}

/** The ask flows' texts of `strings` (templates `adapter.asks`). */
function askStrings(strings: Strings): AdapterAskStrings {
  const text = (key: string, view?: Record<string, unknown>) =>
    t(strings, `adapter.asks.${key}`, view);
  return {
    closed: text('closed'),
    required: text('required'),
    alreadyPlaced: text('already_placed'),
    channelUseDetails: text('channel_use_details'),
    answerBelow: text('answer_below'),
    notRecorded: (reply) => text('not_recorded', { text: reply }),
    formFailed: text('form_failed'),
    closedUseDetails: text('closed_use_details'),
    failedTryAgain: text('failed_try_again'),
    chooseOne: text('choose_one'),
    chooseRange: (min, max) => text('choose_range', { min, max }),
    chooseAtLeast: (min) => text('choose_at_least', { min }),
    yourChoice: (count, limits, picks) => text('your_choice', { count, limits, picks }),
    yourOrder: (count, total, picks) => text('your_order', { count, total, picks }),
    noneYet: text('none_yet'),
    buttons: {
      answer: text('buttons.answer'),
      fillIn: text('buttons.fill_in'),
      edit: text('buttons.edit'),
      editValues: text('buttons.edit_values'),
      editDraft: text('buttons.edit_draft'),
      sendDraft: text('buttons.send_draft'),
      editArguments: text('buttons.edit_arguments'),
      runArguments: text('buttons.run_arguments'),
      rank: text('buttons.rank'),
      copyDraft: text('buttons.copy_draft'),
      undo: text('buttons.undo'),
    },
    steps: stepStrings(strings),
  };
}

/** The step flows' and forms' texts of `strings` (templates `adapter.asks.steps`). */
function stepStrings(strings: Strings): AdapterStepStrings {
  const text = (key: string, view?: Record<string, unknown>) =>
    t(strings, `adapter.asks.steps.${key}`, view);
  const place = (n: number) => ({ n, ordinal: englishOrdinal(n) });
  return {
    yes: text('yes'),
    no: text('no'),
    keep: text('keep'),
    skip: text('skip'),
    submit: text('submit'),
    formTitle: text('form_title'),
    editAnd: (choice) => text('edit_and', { choice }),
    cancel: text('cancel'),
    submitRanking: text('submit_ranking'),
    submitText: text('submit_text'),
    submitArguments: text('submit_arguments'),
    yourDecision: text('your_decision'),
    how: {
      text: text('how_text'),
      number: text('how_number'),
      date: text('how_date'),
      boolean: text('how_boolean'),
      choice: text('how_choice'),
    },
    example: (value) => text('example', { value }),
    now: (value) => text('now', { value }),
    optional: text('optional'),
    problems: {
      useButtons: text('use_buttons'),
      number: text('not_a_number'),
      date: text('not_a_date'),
      empty: text('empty'),
    },
    fieldRequired: (label) => text('field_required', { label }),
    rankEvery: text('rank_every'),
    textRequired: text('text_required'),
    tool: (name) => text('tool', { name }),
    readOnly: text('read_only'),
    place: (n) => text('place', place(n)),
    choosePlace: (n) => text('choose_place', place(n)),
    selectRange: (min, max) => text('select_range', { min, max }),
    orderHint: text('order_hint'),
    moveUp: (label) => text('move_up', { label }),
    moveDown: (label) => text('move_down', { label }),
  };
}

let english: AdapterStrings | undefined;

/** The context's strings, or English for a context built without them (tests, tools). */
export function stringsOf(ctx: Pick<AdapterContext, 'strings'> | null | undefined): AdapterStrings {
  if (ctx?.strings) return ctx.strings;
  english ??= adapterStrings();
  return english;
}

/** A tap's outcome within the window, or the still-pending outcome when it was slower. */
export type TapWithin = { reply: TapReply; late?: undefined } | { late: Promise<TapReply> };

/**
 * Hands `tap` to the relay and waits at most `ms` for its reply. A failure there becomes a
 * `failed` reply in the context's words (logged once, without the tap's data); a slower reply is
 * returned as `late` (its outcome is logged when it comes), so the adapter can answer the
 * platform at once ("Submitting…") and the edited card shows the outcome.
 */
export async function tapWithin(
  ctx: Pick<AdapterContext, 'onTap' | 'strings'> & { log?: Logger | undefined },
  tap: Tap,
  ms: number,
): Promise<TapWithin> {
  const pending = ctx.onTap(tap).catch((error: unknown): TapReply => {
    const err = error instanceof Error ? error.message : String(error);
    ctx.log?.error({ platform: tap.platform, key: tap.key, err }, `${tap.platform} tap failed`);
    return { outcome: 'failed', text: stringsOf(ctx).tapFailed, card: null };
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  const first = await Promise.race([pending, late]).finally(() => clearTimeout(timer));
  if (first) return { reply: first };
  void pending.then((reply) =>
    ctx.log?.info(
      { platform: tap.platform, key: tap.key, outcome: reply.outcome },
      `${tap.platform} tap settled late`,
    ),
  );
  return { late: pending };
}

/**
 * True for the first delivery of event `id` (on any replica, within `ttlMs`); false for a
 * redelivery (platforms retry an event they think was lost). `mark` is stored as the value.
 */
export function firstDelivery(
  kv: KeyValue,
  id: string,
  ttlMs: number,
  mark = '1',
): Promise<boolean> {
  return kv.setIfAbsent(id, mark, ttlMs);
}

const ELLIPSIS = '…';
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Shortens plain text to at most `max` UTF-16 code units (how Telegram, Discord and Slack count),
 * ending with "…". Cuts only between graphemes: never inside a surrogate pair or an emoji sequence.
 */
export function truncateUtf16(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  const room = max - ELLIPSIS.length;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    if (index + segment.length > room) break;
    end = index + segment.length;
  }
  return `${text.slice(0, end).trimEnd()}${ELLIPSIS}`;
}

/** Shortens text to at most `max` code points (how Teams counts), ending with "…" when it cut. */
export function truncateCodePoints(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}${ELLIPSIS}`;
}
