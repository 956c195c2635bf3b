/**
 * Asks on Teams: the ten kinds as Adaptive Card inputs (Input.Text, multiline for drafts,
 * Input.Number, Input.Date, Input.Toggle, Input.ChoiceSet compact / expanded / multi-select, one
 * ChoiceSet per place for a ranking). Teams merges every input's value into the Action.Execute
 * `data` (Action.Submit `value` on older clients) under the input's id, so the ids say what each
 * value is and which type it must be turned back into; askTapData() reads them. A refused answer
 * comes back as the same card with the person's values kept and the problem under each field.
 * Pure: no I/O.
 */
import type { AdapterAskStrings, AdapterStrings } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { AskContent, FieldType } from '../../src/asks/content.ts';
import { protocolOf } from '../../src/asks/protocol.ts';
import type { Card, CardAction } from '../../src/render/card.ts';

import { errorsByInput, fieldId, TEAMS_ASK_PREFIX } from './ask-data.ts';

export { TEAMS_ASK_PREFIX };
/** Choices in one ChoiceSet; beyond this the card keeps the review page. */
export const TEAMS_CHOICES_MAX = 100;
/** Up to this many options show expanded (radio buttons / checkboxes), more as a dropdown. */
const EXPANDED_MAX = 5;
/** Places of a ranking drawn as selects (one each); a longer ranking uses the review page. */
export const TEAMS_RANK_MAX = 20;

type Json = Record<string, unknown>;
/** render.ts's escaping for TextBlocks, handed in (render.ts imports this module). */
type Escape = (text: string) => string;

/** A button of an ask: its action plus fixed data (the decision of an `x-approval` choice). */
export interface TeamsAskButton {
  action: CardAction;
  data?: Json;
  id: string;
}

/** What the ask adds to a card: inputs under the body, and the buttons that submit them. */
export interface TeamsAskParts {
  body: Json[];
  buttons: TeamsAskButton[];
}

/** State of one rendering after a refused answer: what the person sent, and what is wrong. */
export interface AskRetry {
  /** The raw input values of the refused submit (id -> string), shown again. */
  values?: Record<string, unknown>;
  issues?: Array<{ path: string; message: string }>;
}

const id = (tail: string) => `${TEAMS_ASK_PREFIX}${tail}`;

/** The label of an option or choice with what the person should know before picking it. */
function choiceTitle(o: {
  label: string;
  irreversible?: boolean;
  impact_hint?: string | undefined;
}): string {
  const notes = [o.irreversible ? 'cannot be undone' : '', o.impact_hint ?? ''].filter(Boolean);
  return notes.length ? `${o.label} (${notes.join('; ')})` : o.label;
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

type Content<T extends AskContent['type']> = Extract<AskContent, { type: T }>;
type FieldOptions = {
  required?: boolean;
  options?: string[] | undefined;
  placeholder?: string | undefined;
};

/** The card body being built: inputs with their earlier values and, under each, its problem. */
class AskBody {
  readonly body: Json[] = [];

  constructor(
    readonly esc: Escape,
    readonly sent: Record<string, unknown>,
    readonly errors: Map<string, string>,
    readonly words: AdapterAskStrings,
  ) {}

  text(t: string, extra: Json = {}): Json {
    return { type: 'TextBlock', text: this.esc(t), wrap: true, ...extra };
  }

  /** A value the person sent before wins over the content's initial one. */
  initial(inputId: string, fallback: unknown): string {
    return inputId in this.sent ? asText(this.sent[inputId]) : asText(fallback);
  }

  /** The value the person sent before for `inputId`, as an input's `value`, or nothing. */
  sentValue(inputId: string): Json {
    return this.sent[inputId] ? { value: asText(this.sent[inputId]) } : {};
  }

  add(input: Json): void {
    this.body.push(input);
    const error = this.errors.get(String(input.id));
    if (error)
      this.body.push(this.text(error, { color: 'Attention', spacing: 'None', size: 'Small' }));
  }

  /** One typed field (form, modifiable value, tool argument) as its Adaptive Card input. */
  field(
    group: 'f' | 'm' | 'a',
    f: { key: string; label: string; type: FieldType },
    value: unknown,
    o: FieldOptions,
  ): void {
    const inputId = fieldId(group, f.type, f.key);
    const common = {
      id: inputId,
      label: f.label,
      ...(o.required
        ? { isRequired: true, errorMessage: this.words.steps.fieldRequired(f.label) }
        : {}),
    };
    this.add(typedFieldInput(f, common, this.initial(inputId, value), o));
  }
}

/** The input of one field type, with its common part and its current value `v`. */
function typedFieldInput(
  f: { label: string; type: FieldType },
  common: Json,
  v: string,
  o: FieldOptions,
): Json {
  const ph = o.placeholder ? { placeholder: o.placeholder } : {};
  switch (f.type) {
    case 'STRING':
      return { type: 'Input.Text', ...common, ...ph, maxLength: 4000, ...(v ? { value: v } : {}) };
    case 'NUMBER': {
      // Input.Number takes a number; a refused non-number is not shown again (its error is).
      const n = v.trim() === '' ? Number.NaN : Number(v);
      return {
        type: 'Input.Number',
        ...common,
        ...ph,
        ...(Number.isFinite(n) ? { value: n } : {}),
      };
    }
    case 'DATE':
      return { type: 'Input.Date', ...common, ...(v ? { value: v } : {}) };
    case 'BOOLEAN':
      // Input.Toggle sends valueOn / valueOff as strings.
      return {
        type: 'Input.Toggle',
        ...common,
        title: f.label,
        valueOn: 'true',
        valueOff: 'false',
        value: v === 'true' ? 'true' : 'false',
      };
    case 'DROPDOWN': {
      const options = o.options ?? [];
      return {
        type: 'Input.ChoiceSet',
        ...common,
        style: options.length <= EXPANDED_MAX ? 'expanded' : 'compact',
        choices: options.map((x) => ({ title: x, value: x })),
        ...(v ? { value: v } : {}),
      };
    }
  }
}

/**
 * Approve/reject and confirm/cancel are the card's own buttons; other kinds answer with one Submit
 * that carries the inputs (the protocol action of the kind: select or submit).
 */
function askButtons(
  card: Card,
  c: AskContent,
  label: string,
): { submit: CardAction; buttons: TeamsAskButton[] } {
  const action = protocolOf(c).actions[0] ?? 'submit';
  const submit: CardAction = {
    action,
    label,
    style: 'primary',
    payload: `hitl:${card.key}:${action}`,
  };
  const plain = plainAskActions(card);
  const buttons: TeamsAskButton[] =
    c.type === 'approval' || (c.type === 'context' && c.sub_type === 'confirm')
      ? plain.map((a) => ({ action: a, id: `hitl-${a.action}` }))
      : [{ action: submit, id: 'hitl-submit' }];
  return { submit, buttons };
}

function approvalParts(
  b: AskBody,
  c: Content<'approval'>,
  submit: CardAction,
  buttons: TeamsAskButton[],
): TeamsAskParts {
  const notes = c.choices.filter((x) => x.impact_hint || x.irreversible).map(choiceTitle);
  if (notes.length) b.body.push(b.text(notes.join('\n\n'), { isSubtle: true }));
  if (c.sub_type === 'modify')
    for (const f of c.modifiable)
      b.field('m', f, f.type === 'DROPDOWN' ? undefined : f.value, {
        options: f.type === 'DROPDOWN' ? (f.value as string[]) : undefined,
      });
  if (protocolOf(c).type === 'approval') return { body: b.body, buttons };
  // Choice keys other than approve/reject are one `submit` action: one button per choice, each
  // carrying its decision.
  return {
    body: b.body,
    buttons: c.choices.map((x, i) => ({
      action: { ...submit, label: x.label, style: i === 0 ? 'primary' : 'secondary' },
      data: { [id('decision')]: x.key },
      id: `hitl-choice-${i}`,
    })),
  };
}

/** One ChoiceSet per place of a ranking. */
function rankParts(b: AskBody, c: Content<'decision'>, choices: Json[]): void {
  c.options.forEach((_, i) => {
    b.add({
      type: 'Input.ChoiceSet',
      id: id(`rank.${i}`),
      label: b.words.steps.place(i + 1),
      style: 'compact',
      isRequired: true,
      errorMessage: b.words.steps.rankEvery,
      choices,
      ...b.sentValue(id(`rank.${i}`)),
    });
  });
  const rankError = b.errors.get(id('rank'));
  if (rankError) b.body.push(b.text(rankError, { color: 'Attention', size: 'Small' }));
}

function decisionParts(
  b: AskBody,
  c: Content<'decision'>,
  buttons: TeamsAskButton[],
): TeamsAskParts | null {
  if (c.options.length > TEAMS_CHOICES_MAX) return null;
  if (c.sub_type === 'rank' && c.options.length > TEAMS_RANK_MAX) return null;
  const choices = c.options.map((o) => ({ title: choiceTitle(o), value: o.key }));
  const described = c.options.filter((o) => o.description);
  if (described.length)
    b.body.push({
      type: 'FactSet',
      facts: described.map((o) => ({ title: b.esc(o.label), value: b.esc(o.description ?? '') })),
    });
  if (c.sub_type === 'rank') {
    rankParts(b, c, choices);
    return { body: b.body, buttons };
  }
  const multi = c.sub_type === 'multi';
  const inputId = id(multi ? 'many' : 'one');
  const bounds =
    multi && c.max_select !== null
      ? b.words.chooseRange(c.min_select, c.max_select)
      : multi
        ? b.words.chooseAtLeast(c.min_select)
        : b.words.chooseOne;
  b.add({
    type: 'Input.ChoiceSet',
    id: inputId,
    label: bounds,
    style: c.options.length <= EXPANDED_MAX ? 'expanded' : 'compact',
    ...(multi ? { isMultiSelect: true } : {}),
    isRequired: true,
    errorMessage: bounds,
    choices,
    ...b.sentValue(inputId),
  });
  return { body: b.body, buttons };
}

function contextParts(b: AskBody, c: Content<'context'>, buttons: TeamsAskButton[]): TeamsAskParts {
  if (c.sub_type === 'confirm') {
    b.body.push({ type: 'Container', style: 'emphasis', items: [b.text(c.statement)] });
  } else if (c.sub_type === 'freetext') {
    b.add({
      type: 'Input.Text',
      id: id('value'),
      label: c.input.label,
      isMultiline: true,
      maxLength: 4000,
      isRequired: true,
      errorMessage: b.words.steps.fieldRequired(c.input.label),
      ...(c.input.placeholder ? { placeholder: c.input.placeholder } : {}),
      ...b.sentValue(id('value')),
    });
  } else {
    for (const f of c.fields)
      b.field('f', f, undefined, {
        required: f.required && f.type !== 'BOOLEAN',
        options: f.options,
        placeholder: f.placeholder,
      });
  }
  return { body: b.body, buttons };
}

function editParts(b: AskBody, c: Content<'edit'>, buttons: TeamsAskButton[]): TeamsAskParts {
  if (c.sub_type === 'content') {
    b.add({
      type: 'Input.Text',
      id: id('content'),
      label: 'Draft',
      isMultiline: true,
      maxLength: 20_000,
      isRequired: true,
      errorMessage: b.words.steps.textRequired,
      value: b.initial(id('content'), c.draft),
    });
    return { body: b.body, buttons };
  }
  b.body.push(b.text(`Tool: ${c.tool_name || '(unnamed)'}`, { weight: 'Bolder' }));
  const fixed = c.args.filter((a) => !a.editable);
  if (fixed.length)
    b.body.push({
      type: 'FactSet',
      facts: fixed.map((a) => ({
        title: b.esc(`${a.label} ${b.words.steps.readOnly}`),
        value: b.esc(JSON.stringify(a.value)),
      })),
    });
  for (const a of c.args.filter((x) => x.editable)) b.field('a', a, a.value, {});
  for (const a of fixed) {
    const error = b.errors.get(id(`a.${a.key}`));
    if (error) b.body.push(b.text(`${a.label}: ${error}`, { color: 'Attention', size: 'Small' }));
  }
  return { body: b.body, buttons };
}

/**
 * The inputs and buttons for the card's ask, or null when Teams cannot draw it (too many options,
 * a ranking too long): then only buttons that need no input stay, beside the review page.
 */
export function teamsAsk(
  card: Card,
  esc: Escape,
  retry: AskRetry = {},
  strings?: AdapterStrings,
): TeamsAskParts | null {
  const c = card.ask?.content;
  if (!c || card.final) return null;
  const words = stringsOf(strings ? { strings } : null).asks;
  const b = new AskBody(esc, retry.values ?? {}, errorsByInput(c, retry.issues ?? []), words);
  const { submit, buttons } = askButtons(card, c, words.steps.submit);
  switch (c.type) {
    case 'approval':
      return approvalParts(b, c, submit, buttons);
    case 'decision':
      return decisionParts(b, c, buttons);
    case 'context':
      return contextParts(b, c, buttons);
    case 'edit':
      return editParts(b, c, buttons);
  }
}

/** The card's buttons that still work without inputs (approve/reject, confirm/cancel), for a fallback. */
export function plainAskActions(card: Card): CardAction[] {
  return card.actions.filter((a) => a.action !== 'submit' && a.action !== 'select');
}

export { askInputs, askTapData } from './ask-data.ts';
