/**
 * Asks in Discord beyond selects, pure: an "Answer…" button that opens a modal (up to 5 fields,
 * modal-fields.ts: text inputs, paragraph style for text and drafts, radio groups for DROPDOWN and
 * yes/no, checkboxes for yes/no values that have one; prefilled for tool args and modifiable
 * fields) for freetext, content, form, modify and tool_args, and a ranking by successive string
 * selects in an ephemeral message (the places so far travel in the select's custom_id as option
 * indexes, never a token). Beyond the limits (> 5 fields, a draft > 4000 characters, > 25 options)
 * there is no button: the card keeps the signed review page (Details).
 */
import type { AdapterAskButtons, AdapterStepStrings, Tap } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { AskContent, FieldType } from '../../src/asks/content.ts';
import { answerAction, askInputs, inputsAnswer } from '../../src/asks/inputs.ts';
import type { Card } from '../../src/render/card.ts';
import { DISCORD_SELECT_MAX_OPTIONS, type DiscordStringSelect } from './ask.ts';
import { type DiscordLabel, type ModalInput, modalField } from './modal-fields.ts';

export { modalValues } from './modal-fields.ts';

/** Approve / reject keys only: the protocol `approval` type, whose buttons the card already has. */
function plainApproval(c: Extract<AskContent, { type: 'approval' }>): boolean {
  return c.choices.every((x) => x.key === 'approve' || x.key === 'reject');
}

/** Discord's modal limits. */
export const DISCORD_MODAL_MAX_INPUTS = 5;
const MODAL_TITLE_MAX = 45;
const INPUT_VALUE_MAX = 4000;
const OPTION_LABEL_MAX = 100;

/** Interaction callback types: MODAL (9). */
export const CALLBACK_MODAL = 9;

const OPEN_ID = /^hitl-ask:([A-Za-z0-9_-]{1,32}):(open|rank|c(\d))$/;
const MODAL_ID = /^hitl-modal:([A-Za-z0-9_-]{1,32})$/;
const RANK_ID = /^hitl-rank:([A-Za-z0-9_-]{1,32}):((?:\d{1,2}\.){0,24})$/;

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/** A modal: the data of an interaction response of type 9, one Label-wrapped field per input. */
export interface DiscordModal {
  custom_id: string;
  title: string;
  components: DiscordLabel[];
}

/** The modal's inputs for a kind that has a modal; null for other kinds or beyond the limits. */
function inputsOf(c: AskContent): ModalInput[] | null {
  const inputs = askInputs(c).map(
    ({ current, ...i }): ModalInput =>
      current === undefined ? i : { ...i, current: String(current) },
  );
  if (!inputs.length || inputs.length > DISCORD_MODAL_MAX_INPUTS) return null;
  if (inputs.some((i) => (i.current?.length ?? 0) > INPUT_VALUE_MAX)) return null;
  return inputs;
}

/** The modal of the card's ask, or null when Discord cannot draw it as one. */
export function askModal(
  key: string,
  c: AskContent,
  words: AdapterStepStrings = stringsOf(null).asks.steps,
): DiscordModal | null {
  const inputs = inputsOf(c);
  if (!inputs) return null;
  const title = c.type === 'approval' ? words.editAnd(approveChoice(c)) : c.prompt;
  return {
    custom_id: `hitl-modal:${key}`,
    title: cut(title, MODAL_TITLE_MAX),
    components: inputs.map(modalField),
  };
}

/** The choice a modify modal submits with (approve, else the first choice). */
function approveChoice(c: Extract<AskContent, { type: 'approval' }>): string {
  return (c.choices.find((x) => x.key === 'approve') ?? c.choices[0])!.key;
}

/** The card's button that opens the ask's modal or its ranking, or null. */
export function askOpenButton(
  card: Card,
  words: AdapterAskButtons = stringsOf(null).asks.buttons,
): { type: 2; style: 1; label: string; custom_id: string } | null {
  const c = card.ask?.content;
  if (!c || card.final) return null;
  if (c.type === 'decision' && c.sub_type === 'rank')
    return c.options.length <= DISCORD_SELECT_MAX_OPTIONS && c.options.length >= 2
      ? { type: 2, style: 1, label: words.rank, custom_id: `hitl-ask:${card.key}:rank` }
      : null;
  if (!askModal(card.key, c)) return null;
  const label =
    c.type === 'approval' ? words.editValues : c.type === 'edit' ? words.edit : words.answer;
  return { type: 2, style: 1, label, custom_id: `hitl-ask:${card.key}:open` };
}

/** `hitl-ask:<key>:open|rank|c<n>` -> its parts (c<n>: choice n); null for other custom_ids. */
export function parseOpen(
  customId: string | undefined,
): { key: string; what: 'open' | 'rank' | 'choice'; n: number } | null {
  const m = OPEN_ID.exec(customId ?? '');
  if (!m) return null;
  return m[3] !== undefined
    ? { key: m[1]!, what: 'choice', n: Number(m[3]) }
    : { key: m[1]!, what: m[2] as 'open' | 'rank', n: -1 };
}

/**
 * Buttons for an approval whose choice keys are not approve / reject (protocol `x-approval`,
 * answered with `submit`): one per choice, the choice's label (⚠️ when irreversible), at most 5.
 */
export function askChoiceButtons(
  card: Card,
): Array<{ type: 2; style: 1 | 2 | 4; label: string; custom_id: string }> {
  const c = card.ask?.content;
  if (!c || card.final || c.type !== 'approval' || plainApproval(c)) return [];
  if (c.choices.length > 5) return [];
  return c.choices.map((x, i) => ({
    type: 2 as const,
    style: x.irreversible ? 4 : i === 0 ? 1 : 2,
    label: cut(`${x.irreversible ? '⚠️ ' : ''}${x.label}`, 80),
    custom_id: `hitl-ask:${card.key}:c${i}`,
  }));
}

/** The typed answer of choice button `n` of an approval, or null. */
export function choiceAnswer(c: AskContent, n: number): Pick<Tap, 'action' | 'data'> | null {
  if (c.type !== 'approval') return null;
  const choice = c.choices[n];
  if (!choice) return null;
  const data = { decision: choice.key };
  return { action: answerAction(c, data), data };
}

/** `hitl-modal:<key>` -> the key; null for other custom_ids. */
export function parseModalId(customId: string | undefined): string | null {
  return MODAL_ID.exec(customId ?? '')?.[1] ?? null;
}

/** Text as a typed value: left as text when it is not one, so the answer check names the problem. */
function typed(type: FieldType, raw: string): unknown {
  const t = raw.trim();
  if (type === 'NUMBER' && /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i.test(t)) return Number(t);
  if (type === 'BOOLEAN') {
    if (/^(yes|y|true|1)$/i.test(t)) return true;
    if (/^(no|n|false|0)$/i.test(t)) return false;
  }
  if (type === 'DATE' || type === 'DROPDOWN' || type === 'NUMBER' || type === 'BOOLEAN') return t;
  return raw;
}

/** The typed answer of a submitted modal (empty optional inputs and unchanged values left out). */
export function modalAnswer(
  c: AskContent,
  raw: Record<string, string>,
): Pick<Tap, 'action' | 'data'> | null {
  const inputs = inputsOf(c);
  if (!inputs) return null;
  const values: Record<string, unknown> = {};
  for (const i of inputs) {
    const text = raw[i.key] ?? '';
    if (i.current !== undefined && text === i.current && i.key !== 'content') continue;
    if (text.trim() === '' && i.type !== 'STRING') continue;
    if (text === '' && !i.required) continue;
    values[i.key] = typed(i.type, text);
  }
  return inputsAnswer(c, values, c.type === 'approval' ? approveChoice(c) : undefined);
}

/** `hitl-rank:<key>:<i>.<j>.` -> the key and the places so far; null for other custom_ids. */
export function parseRankId(
  customId: string | undefined,
): { key: string; places: number[] } | null {
  const m = RANK_ID.exec(customId ?? '');
  if (!m) return null;
  return { key: m[1]!, places: m[2]!.split('.').filter(Boolean).map(Number) };
}

/**
 * The next step of a ranking after `places`: the ephemeral message with the order so far and a
 * select for the next place, or the ranking (option keys) once only one option is left.
 */
export function rankStep(
  key: string,
  c: AskContent,
  places: number[],
  words: AdapterStepStrings = stringsOf(null).asks.steps,
): { ranking: string[] } | { content: string; select: DiscordStringSelect } | null {
  if (c.type !== 'decision' || c.sub_type !== 'rank') return null;
  const left = c.options.map((_, i) => i).filter((i) => !places.includes(i));
  if (left.length <= 1)
    return { ranking: [...places, ...left].map((i) => c.options[i]?.key ?? String(i)) };
  const sofar = places.map((i, n) => `${n + 1}. ${c.options[i]?.label ?? '?'}`);
  return {
    content: [...sofar, words.choosePlace(places.length + 1)].join('\n'),
    select: {
      type: 3,
      custom_id: `hitl-rank:${key}:${places.map((i) => `${i}.`).join('')}`,
      placeholder: words.place(places.length + 1),
      min_values: 1,
      max_values: 1,
      options: left.map((i) => ({
        label: cut(c.options[i]!.label, OPTION_LABEL_MAX),
        value: String(i),
      })),
    },
  };
}
