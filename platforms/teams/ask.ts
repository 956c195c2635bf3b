/**
 * Asks on Teams: the ten kinds as Adaptive Card inputs (Input.Text, multiline for drafts,
 * Input.Number, Input.Date, Input.Toggle, Input.ChoiceSet compact / expanded / multi-select, one
 * ChoiceSet per place for a ranking). Teams merges every input's value into the Action.Execute
 * `data` (Action.Submit `value` on older clients) under the input's id, so the ids say what each
 * value is and which type it must be turned back into; askTapData() reads them. A refused answer
 * comes back as the same card with the person's values kept and the problem under each field.
 * Pure: no I/O.
 */
import type { AskContent, FieldType } from '../../src/asks/content.ts';
import { protocolOf } from '../../src/asks/protocol.ts';
import type { Card, CardAction } from '../../src/render/card.ts';

/** Ids of ask inputs (and the decision field of choice buttons) start with this. */
export const TEAMS_ASK_PREFIX = 'hitl-ask.';
/** Choices in one ChoiceSet; beyond this the card keeps the review page. */
export const TEAMS_CHOICES_MAX = 100;
/** Up to this many options show expanded (radio buttons / checkboxes), more as a dropdown. */
const EXPANDED_MAX = 5;
/** Places of a ranking drawn as selects (one each); a longer ranking uses the review page. */
export const TEAMS_RANK_MAX = 20;

type Json = Record<string, unknown>;
/** render.ts's escaping for TextBlocks, handed in (render.ts imports this module). */
type Escape = (text: string) => string;

/** One type letter per FieldType in an input id: `hitl-ask.f.N.priority`. */
const LETTER: Record<FieldType, string> = {
  STRING: 'S',
  NUMBER: 'N',
  BOOLEAN: 'B',
  DATE: 'D',
  DROPDOWN: 'O',
};
const TYPE_OF: Record<string, FieldType> = {
  S: 'STRING',
  N: 'NUMBER',
  B: 'BOOLEAN',
  D: 'DATE',
  O: 'DROPDOWN',
};

/** A button of an ask: its action plus fixed data (the decision of an `x-approval` choice). */
export interface AskButton {
  action: CardAction;
  data?: Json;
  id: string;
}

/** What the ask adds to a card: inputs under the body, and the buttons that submit them. */
export interface TeamsAskParts {
  body: Json[];
  buttons: AskButton[];
}

/** State of one rendering after a refused answer: what the person sent, and what is wrong. */
export interface AskRetry {
  /** The raw input values of the refused submit (id -> string), shown again. */
  values?: Record<string, unknown>;
  issues?: Array<{ path: string; message: string }>;
}

const id = (tail: string) => `${TEAMS_ASK_PREFIX}${tail}`;
const fieldId = (group: 'f' | 'm' | 'a', type: FieldType, key: string) =>
  id(`${group}.${LETTER[type]}.${key}`);

function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
}

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

/**
 * The inputs and buttons for the card's ask, or null when Teams cannot draw it (too many options,
 * a ranking too long): then only buttons that need no input stay, beside the review page.
 */
export function teamsAsk(card: Card, esc: Escape, retry: AskRetry = {}): TeamsAskParts | null {
  const c = card.ask?.content;
  if (!c || card.final) return null;
  const sent = retry.values ?? {};
  const errors = errorsByInput(c, retry.issues ?? []);
  const body: Json[] = [];
  const text = (t: string, extra: Json = {}) => ({
    type: 'TextBlock',
    text: esc(t),
    wrap: true,
    ...extra,
  });
  // A value the person sent before wins over the content's initial one.
  const initial = (inputId: string, fallback: unknown) =>
    inputId in sent ? asText(sent[inputId]) : asText(fallback);
  const add = (input: Json) => {
    const inputId = String(input.id);
    body.push(input);
    const error = errors.get(inputId);
    if (error) body.push(text(error, { color: 'Attention', spacing: 'None', size: 'Small' }));
  };
  const field = (
    group: 'f' | 'm' | 'a',
    f: { key: string; label: string; type: FieldType },
    value: unknown,
    o: { required?: boolean; options?: string[] | undefined; placeholder?: string | undefined },
  ) => {
    const inputId = fieldId(group, f.type, f.key);
    const common = {
      id: inputId,
      label: f.label,
      ...(o.required ? { isRequired: true, errorMessage: `${f.label} is required` } : {}),
    };
    const v = initial(inputId, value);
    const ph = o.placeholder ? { placeholder: o.placeholder } : {};
    switch (f.type) {
      case 'STRING':
        return add({
          type: 'Input.Text',
          ...common,
          ...ph,
          maxLength: 4000,
          ...(v ? { value: v } : {}),
        });
      case 'NUMBER': {
        // Input.Number takes a number; a refused non-number is not shown again (its error is).
        const n = v.trim() === '' ? Number.NaN : Number(v);
        return add({
          type: 'Input.Number',
          ...common,
          ...ph,
          ...(Number.isFinite(n) ? { value: n } : {}),
        });
      }
      case 'DATE':
        return add({ type: 'Input.Date', ...common, ...(v ? { value: v } : {}) });
      case 'BOOLEAN':
        // Input.Toggle sends valueOn / valueOff as strings.
        return add({
          type: 'Input.Toggle',
          ...common,
          title: f.label,
          valueOn: 'true',
          valueOff: 'false',
          value: v === 'true' ? 'true' : 'false',
        });
      case 'DROPDOWN': {
        const options = o.options ?? [];
        return add({
          type: 'Input.ChoiceSet',
          ...common,
          style: options.length <= EXPANDED_MAX ? 'expanded' : 'compact',
          choices: options.map((x) => ({ title: x, value: x })),
          ...(v ? { value: v } : {}),
        });
      }
    }
  };
  // Approve/reject and confirm/cancel are the card's own buttons; other kinds answer with one
  // Submit that carries the inputs (the protocol action of the kind: select or submit).
  const answerWith = (action: string): CardAction => ({
    action,
    label: 'Submit',
    style: 'primary',
    payload: `hitl:${card.key}:${action}`,
  });
  const submit = answerWith(protocolOf(c).actions[0] ?? 'submit');
  const plain = card.actions.filter((a) => a.action !== 'submit' && a.action !== 'select');
  const buttons: AskButton[] =
    c.type === 'approval' || (c.type === 'context' && c.sub_type === 'confirm')
      ? plain.map((action) => ({ action, id: `hitl-${action.action}` }))
      : [{ action: submit, id: 'hitl-submit' }];

  switch (c.type) {
    case 'approval': {
      const notes = c.choices.filter((x) => x.impact_hint || x.irreversible).map(choiceTitle);
      if (notes.length) body.push(text(notes.join('\n\n'), { isSubtle: true }));
      if (c.sub_type === 'modify')
        for (const f of c.modifiable)
          field('m', f, f.type === 'DROPDOWN' ? undefined : f.value, {
            options: f.type === 'DROPDOWN' ? (f.value as string[]) : undefined,
          });
      // Choice keys other than approve/reject are one `submit` action: one button per choice,
      // each carrying its decision.
      if (protocolOf(c).type !== 'approval') {
        return {
          body,
          buttons: c.choices.map((x, i) => ({
            action: { ...submit, label: x.label, style: i === 0 ? 'primary' : 'secondary' },
            data: { [id('decision')]: x.key },
            id: `hitl-choice-${i}`,
          })),
        };
      }
      return { body, buttons };
    }
    case 'decision': {
      if (c.options.length > TEAMS_CHOICES_MAX) return null;
      const choices = c.options.map((o) => ({ title: choiceTitle(o), value: o.key }));
      const described = c.options.filter((o) => o.description);
      if (described.length)
        body.push({
          type: 'FactSet',
          facts: described.map((o) => ({ title: esc(o.label), value: esc(o.description ?? '') })),
        });
      if (c.sub_type === 'rank') {
        if (c.options.length > TEAMS_RANK_MAX) return null;
        c.options.forEach((_, i) => {
          add({
            type: 'Input.ChoiceSet',
            id: id(`rank.${i}`),
            label: `${ordinal(i + 1)} place`,
            style: 'compact',
            isRequired: true,
            errorMessage: 'Rank every option',
            choices,
            ...(sent[id(`rank.${i}`)] ? { value: asText(sent[id(`rank.${i}`)]) } : {}),
          });
        });
        const rankError = errors.get(id('rank'));
        if (rankError) body.push(text(rankError, { color: 'Attention', size: 'Small' }));
        return { body, buttons };
      }
      const multi = c.sub_type === 'multi';
      const inputId = id(multi ? 'many' : 'one');
      const bounds =
        multi && c.max_select !== null
          ? `Choose ${c.min_select}-${c.max_select}`
          : multi
            ? `Choose at least ${c.min_select}`
            : 'Choose one';
      add({
        type: 'Input.ChoiceSet',
        id: inputId,
        label: bounds,
        style: c.options.length <= EXPANDED_MAX ? 'expanded' : 'compact',
        ...(multi ? { isMultiSelect: true } : {}),
        isRequired: true,
        errorMessage: bounds,
        choices,
        ...(sent[inputId] ? { value: asText(sent[inputId]) } : {}),
      });
      return { body, buttons };
    }
    case 'context': {
      if (c.sub_type === 'confirm') {
        body.push({
          type: 'Container',
          style: 'emphasis',
          items: [text(c.statement)],
        });
        return { body, buttons };
      }
      if (c.sub_type === 'freetext') {
        add({
          type: 'Input.Text',
          id: id('value'),
          label: c.input.label,
          isMultiline: true,
          maxLength: 4000,
          isRequired: true,
          errorMessage: `${c.input.label} is required`,
          ...(c.input.placeholder ? { placeholder: c.input.placeholder } : {}),
          ...(sent[id('value')] ? { value: asText(sent[id('value')]) } : {}),
        });
        return { body, buttons };
      }
      for (const f of c.fields)
        field('f', f, undefined, {
          required: f.required && f.type !== 'BOOLEAN',
          options: f.options,
          placeholder: f.placeholder,
        });
      return { body, buttons };
    }
    case 'edit': {
      if (c.sub_type === 'content') {
        add({
          type: 'Input.Text',
          id: id('content'),
          label: 'Draft',
          isMultiline: true,
          maxLength: 20_000,
          isRequired: true,
          errorMessage: 'The text must not be empty',
          value: initial(id('content'), c.draft),
        });
        return { body, buttons };
      }
      body.push(text(`Tool: ${c.tool_name || '(unnamed)'}`, { weight: 'Bolder' }));
      const fixed = c.args.filter((a) => !a.editable);
      if (fixed.length)
        body.push({
          type: 'FactSet',
          facts: fixed.map((a) => ({
            title: esc(`${a.label} (read-only)`),
            value: esc(JSON.stringify(a.value)),
          })),
        });
      for (const a of c.args.filter((x) => x.editable)) field('a', a, a.value, {});
      for (const a of fixed) {
        const error = errors.get(id(`a.${a.key}`));
        if (error) body.push(text(`${a.label}: ${error}`, { color: 'Attention', size: 'Small' }));
      }
      return { body, buttons };
    }
  }
}

/** The card's buttons that still work without inputs (approve/reject, confirm/cancel), for a fallback. */
export function plainAskActions(card: Card): CardAction[] {
  return card.actions.filter((a) => a.action !== 'submit' && a.action !== 'select');
}

/** Input id -> the first problem with it; the ask's general problems under `hitl-ask.` itself. */
function errorsByInput(
  c: AskContent,
  issues: Array<{ path: string; message: string }>,
): Map<string, string> {
  const out = new Map<string, string>();
  const put = (k: string, m: string) => {
    if (!out.has(k)) out.set(k, m);
  };
  const typeOf = (list: Array<{ key: string; type: FieldType }>, key: string) =>
    list.find((x) => x.key === key)?.type;
  for (const i of issues) {
    const m = /^data\.(values|args)\.([^.]+)/.exec(i.path);
    if (m?.[2]) {
      const key = m[2];
      if (m[1] === 'args' && c.type === 'edit' && c.sub_type === 'tool_args') {
        const arg = c.args.find((a) => a.key === key);
        put(arg?.editable ? fieldId('a', arg.type, key) : id(`a.${key}`), i.message);
      } else if (c.type === 'context' && c.sub_type === 'form') {
        const t = typeOf(c.fields, key);
        if (t) put(fieldId('f', t, key), i.message);
      } else if (c.type === 'approval' && c.sub_type === 'modify') {
        const t = typeOf(c.modifiable, key);
        if (t) put(fieldId('m', t, key), i.message);
      }
      continue;
    }
    if (i.path.startsWith('data.selected'))
      put(id(c.type === 'decision' && c.sub_type === 'multi' ? 'many' : 'one'), i.message);
    else if (i.path.startsWith('data.ranking')) put(id('rank'), i.message);
    else if (i.path.startsWith('data.value')) put(id('value'), i.message);
    else if (i.path.startsWith('data.content')) put(id('content'), i.message);
  }
  return out;
}

/** An input value as its field type wants it; empty inputs are left out (undefined). */
function typedInput(type: FieldType, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  switch (type) {
    case 'STRING':
      return raw;
    case 'NUMBER': {
      if (raw.trim() === '') return undefined;
      const n = Number(raw);
      // A value that is not a number stays a string, so the check names the field.
      return Number.isFinite(n) ? n : raw;
    }
    case 'BOOLEAN':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    default:
      return raw === '' ? undefined : raw;
  }
}

/** The raw ask inputs of an Action.Execute `data` / Action.Submit `value` (id -> value). */
export function askInputs(data: unknown): Record<string, unknown> {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return {};
  return Object.fromEntries(
    Object.entries(data as Json).filter(([k]) => k.startsWith(TEAMS_ASK_PREFIX)),
  );
}

/**
 * The typed answer data in an Action.Execute `data` (or Action.Submit `value`): inputs turned back
 * into the ask's shapes by their ids; undefined when the card had no ask inputs (a plain button).
 */
export function askTapData(data: unknown): Record<string, unknown> | undefined {
  const inputs = askInputs(data);
  if (Object.keys(inputs).length === 0) return undefined;
  const out: Json = {};
  const ranking: Array<{ place: number; key: unknown }> = [];
  const groups: Record<'f' | 'm' | 'a', Json> = { f: {}, m: {}, a: {} };
  for (const [k, raw] of Object.entries(inputs)) {
    const tail = k.slice(TEAMS_ASK_PREFIX.length);
    const field = /^([fma])\.([SNBDO])\.(.+)$/.exec(tail);
    if (field) {
      const [, group, letter, key] = field as unknown as [string, 'f' | 'm' | 'a', string, string];
      const type = TYPE_OF[letter] as FieldType;
      const v = typedInput(type, raw);
      if (v !== undefined) groups[group][key] = v;
      continue;
    }
    const place = /^rank\.(\d{1,2})$/.exec(tail);
    if (place) {
      if (typeof raw === 'string' && raw !== '')
        ranking.push({ place: Number(place[1]), key: raw });
      continue;
    }
    if (tail === 'one') {
      if (typeof raw === 'string' && raw !== '') out.selected = raw;
    } else if (tail === 'many') {
      // A multi-select ChoiceSet sends "a,b,c" (option keys never hold a comma).
      out.selected = typeof raw === 'string' ? raw.split(',').filter((s) => s !== '') : raw;
    } else if (tail === 'value' || tail === 'content' || tail === 'decision') {
      out[tail] = raw;
    }
  }
  if (ranking.length || Object.keys(inputs).some((k) => k.startsWith(id('rank.'))))
    out.ranking = ranking.sort((a, b) => a.place - b.place).map((r) => r.key);
  if (Object.keys(groups.f).length || hasGroup(inputs, 'f')) out.values = groups.f;
  if (Object.keys(groups.m).length) out.values = groups.m;
  if (Object.keys(groups.a).length || hasGroup(inputs, 'a')) out.args = groups.a;
  return out;
}

function hasGroup(inputs: Record<string, unknown>, group: string): boolean {
  return Object.keys(inputs).some((k) => k.startsWith(id(`${group}.`)));
}
