/**
 * Asks on Google Chat: the kinds as cards v2 input widgets inside the card message (textInput,
 * multiline for drafts; selectionInput as radio buttons, check boxes, a dropdown, a multi-select or
 * a switch; dateTimePicker DATE_ONLY). Chat sends every input's value with the button click in
 * `common.formInputs` under the widget's `name`, so the names say what each value is and its type
 * (`i.<type letter>.<key>`), and the button's parameters say the kind (`k`) and, for an approval's
 * own choices, the decision (`d`); askTapData() turns them back into the answer's data without the
 * case. A ranking has no native widget here: it keeps the review page (Details). Pure: no I/O.
 */
import type { AdapterAskStrings } from '../../src/adapter.ts';
import type { AskContent, FieldType } from '../../src/asks/content.ts';
import { type AskInput, askInputs } from '../../src/asks/inputs.ts';
import { protocolOf } from '../../src/asks/protocol.ts';
import type { Card, CardAction } from '../../src/render/card.ts';

type Json = Record<string, unknown>;

/** Options of one selectionInput drawn (the ask model allows at most 100). */
export const GOOGLECHAT_CHOICES_MAX = 100;
/** Up to this many options show as radio buttons / check boxes, more as a dropdown / multi-select. */
const EXPANDED_MAX = 5;

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

/** A button of an ask: the card action it submits and the parameters it carries besides. */
export interface AskButton {
  action: CardAction;
  params: Record<string, string>;
}

/** What an ask adds to a card: widgets above the buttons, and the buttons. */
export interface AskParts {
  widgets: Json[];
  buttons: AskButton[];
}

type Escape = (text: string) => string;

const DAY_MS = 24 * 60 * 60 * 1000;

/** One typed input as its widget. */
function inputWidget(i: AskInput): Json {
  const name = `i.${LETTER[i.type]}.${i.key}`;
  // Widget labels and items are plain text; only paragraphs take Chat's HTML subset.
  const label = i.label;
  const current = i.current === undefined ? '' : String(i.current);
  switch (i.type) {
    case 'BOOLEAN':
      return {
        selectionInput: {
          name,
          label,
          type: 'SWITCH',
          items: [{ text: label, value: 'true', selected: i.current === true }],
        },
      };
    case 'DATE': {
      const ms = /^\d{4}-\d{2}-\d{2}$/.test(current) ? Date.parse(`${current}T00:00:00Z`) : NaN;
      return {
        dateTimePicker: {
          name,
          label,
          type: 'DATE_ONLY',
          ...(Number.isFinite(ms) ? { valueMsEpoch: String(ms) } : {}),
        },
      };
    }
    case 'DROPDOWN':
      return {
        selectionInput: {
          name,
          label,
          type: 'DROPDOWN',
          items: (i.options ?? [])
            .slice(0, GOOGLECHAT_CHOICES_MAX)
            .map((o) => ({ text: o, value: o, selected: o === current })),
        },
      };
    default:
      return {
        textInput: {
          name,
          label,
          type: i.multiline ? 'MULTIPLE_LINE' : 'SINGLE_LINE',
          ...(current ? { value: current } : {}),
          ...(i.placeholder ? { hintText: i.placeholder } : {}),
        },
      };
  }
}

function decisionWidget(c: Extract<AskContent, { type: 'decision' }>, words: AdapterAskStrings) {
  const multi = c.sub_type === 'multi';
  const label =
    multi && c.max_select !== null
      ? words.chooseRange(c.min_select, c.max_select)
      : multi
        ? words.chooseAtLeast(c.min_select)
        : words.chooseOne;
  const few = c.options.length <= EXPANDED_MAX;
  const type = multi ? (few ? 'CHECK_BOX' : 'MULTI_SELECT') : few ? 'RADIO_BUTTON' : 'DROPDOWN';
  return {
    selectionInput: {
      name: multi ? 'many' : 'one',
      label,
      type,
      items: c.options.map((o) => ({
        text: o.irreversible ? `${o.label} (cannot be undone)` : o.label,
        value: o.key,
        selected: false,
        ...(o.description ? { bottomText: o.description } : {}),
      })),
      ...(type === 'MULTI_SELECT' && c.sub_type === 'multi' && c.max_select !== null
        ? { multiSelectMaxSelectedItems: c.max_select }
        : {}),
    },
  };
}

/**
 * The widgets and buttons of the card's ask, or null when Chat cannot draw it (a ranking, too many
 * options): the card then keeps only the buttons that need no input, beside Details.
 */
export function googlechatAsk(card: Card, words: AdapterAskStrings, esc: Escape): AskParts | null {
  const c = card.ask?.content;
  if (!c || card.final) return null;
  const kind = `${c.type}.${c.sub_type}`;
  const action = protocolOf(c).actions[0] ?? 'submit';
  const submit: CardAction = {
    action,
    label: words.steps.submit,
    style: 'primary',
    payload: `hitl:${card.key}:${action}`,
  };
  const plain = plainAskActions(card).map((a) => ({ action: a, params: { k: kind } }));
  const widgets = askInputs(c).map((i) => inputWidget(i));
  if (c.type === 'decision') {
    if (c.sub_type === 'rank' || c.options.length > GOOGLECHAT_CHOICES_MAX) return null;
    return {
      widgets: [decisionWidget(c, words)],
      buttons: [{ action: submit, params: { k: kind } }],
    };
  }
  if (c.type === 'approval') {
    if (protocolOf(c).type === 'approval') return { widgets, buttons: plain };
    // Choice keys other than approve/reject: one `submit` button per choice, carrying its decision.
    return {
      widgets,
      buttons: c.choices.map((x, n) => ({
        action: { ...submit, label: x.label, style: n === 0 ? 'primary' : 'secondary' },
        params: { k: kind, d: x.key },
      })),
    };
  }
  const say = (text: string) => ({ textParagraph: { text: esc(text) } });
  if (c.type === 'context' && c.sub_type === 'confirm')
    return { widgets: [say(c.statement)], buttons: plain };
  if (c.type === 'edit' && c.sub_type === 'tool_args') {
    // The arguments that cannot be edited are shown as they will be sent.
    const fixed = c.args
      .filter((a) => !a.editable)
      .map((a) => say(`${a.label} (read-only): ${JSON.stringify(a.value)}`));
    widgets.unshift(say(`Tool: ${c.tool_name || '(unnamed)'}`), ...fixed);
  }
  return { widgets, buttons: [{ action: submit, params: { k: kind } }] };
}

/** The card's buttons that work without inputs (approve/reject, confirm/cancel). */
export function plainAskActions(card: Card): CardAction[] {
  return card.actions.filter((a) => a.action !== 'submit' && a.action !== 'select');
}

/** One form input as Chat sends it. */
interface FormInput {
  stringInputs?: { value?: unknown[] };
  dateInput?: { msSinceEpoch?: string | number };
  dateTimeInput?: { msSinceEpoch?: string | number };
}

/** The values of a form input: its strings, or a picked date as YYYY-MM-DD (UTC). */
function valuesOf(input: FormInput | undefined): string[] {
  if (!input || typeof input !== 'object') return [];
  const date = input.dateInput ?? input.dateTimeInput;
  if (date?.msSinceEpoch !== undefined) {
    const ms = Number(date.msSinceEpoch);
    if (!Number.isFinite(ms)) return [];
    return [new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10)];
  }
  return (input.stringInputs?.value ?? []).filter((v): v is string => typeof v === 'string');
}

/** A value typed as its field wants it; an empty input is left out (undefined). */
function typed(type: FieldType, values: string[]): unknown {
  const raw = values[0];
  if (type === 'BOOLEAN') return raw === 'true';
  if (raw === undefined || (raw === '' && type !== 'STRING')) return undefined;
  if (type === 'NUMBER') {
    const n = Number(raw);
    // A value that is not a number stays a string, so the check names the field.
    return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
  }
  return raw;
}

/** The typed values of every `i.*` input by key. */
function fieldValues(inputs: Record<string, FormInput>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, input] of Object.entries(inputs)) {
    const m = /^i\.([SNBDO])\.(.+)$/.exec(name);
    if (!m) continue;
    const v = typed(TYPE_OF[m[1] as string] as FieldType, valuesOf(input));
    if (v !== undefined) out[m[2] as string] = v;
  }
  return out;
}

/**
 * The answer data of a click on an ask's button: the kind (`k`) and decision (`d`) from its
 * parameters, the values from the form inputs; undefined for a plain button (approve, confirm).
 */
export function askTapData(
  params: Record<string, string>,
  formInputs: unknown,
): Record<string, unknown> | undefined {
  const inputs = (formInputs && typeof formInputs === 'object' ? formInputs : {}) as Record<
    string,
    FormInput
  >;
  const values = fieldValues(inputs);
  const some = Object.keys(values).length > 0;
  switch (params.k) {
    case 'decision.single':
      return { selected: valuesOf(inputs.one)[0] ?? '' };
    case 'decision.multi':
      return { selected: valuesOf(inputs.many) };
    case 'context.freetext':
      return { value: values.value ?? '' };
    case 'context.form':
      return { values };
    case 'edit.content':
      return { content: values.content ?? '' };
    case 'edit.tool_args':
      return { args: values };
    case 'approval.modify':
    case 'approval.binary':
      if (params.d) return some ? { decision: params.d, values } : { decision: params.d };
      return some ? { values } : undefined;
    default:
      return undefined;
  }
}
