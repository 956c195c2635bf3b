/**
 * One modal field per ask input, as Discord's Label-wrapped modal components (type 18): a text
 * input (4) for text, numbers and dates; a radio group (21, 2-10 options) for a DROPDOWN and for a
 * yes/no question without a current value; a checkbox (23) for a yes/no value that has one (tool
 * args, modifiable fields: the box starts as the value is); a string select (3) for a DROPDOWN of
 * 11-25 values. The submit's values come back as text, so one typing step reads them all. Pure.
 */
import type { AskInput } from '../../src/asks/inputs.ts';

/** Discord's limits for Label-wrapped modal components. */
const LABEL_MAX = 45;
const DESCRIPTION_MAX = 100;
const INPUT_VALUE_MAX = 4000;
const PLACEHOLDER_MAX = 100;
const OPTION_TEXT_MAX = 100;
export const RADIO_MIN_OPTIONS = 2;
export const RADIO_MAX_OPTIONS = 10;
const SELECT_MAX_OPTIONS = 25;

/** A text input (4) inside a Label: its label is the Label's. */
export interface DiscordTextInput {
  type: 4;
  custom_id: string;
  style: 1 | 2;
  required: boolean;
  value?: string;
  placeholder?: string;
  max_length?: number;
}

/** An option of a radio group or a string select. */
export interface DiscordModalOption {
  label: string;
  value: string;
  default?: boolean;
}

/** A radio group (21): exactly one of 2-10 options. */
export interface DiscordRadioGroup {
  type: 21;
  custom_id: string;
  required: boolean;
  options: DiscordModalOption[];
}

/** A checkbox (23): one yes/no value. */
export interface DiscordCheckbox {
  type: 23;
  custom_id: string;
  default: boolean;
}

/** A string select (3) in a modal: one of up to 25 options. */
export interface DiscordModalSelect {
  type: 3;
  custom_id: string;
  required: boolean;
  min_values: number;
  max_values: 1;
  options: DiscordModalOption[];
}

/** A Label (18): the field's name and one component. */
export interface DiscordLabel {
  type: 18;
  label: string;
  description?: string;
  component: DiscordTextInput | DiscordRadioGroup | DiscordCheckbox | DiscordModalSelect;
}

/** An ask input with its current value as the text the field starts with. */
export interface ModalInput extends Omit<AskInput, 'current'> {
  current?: string;
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

const HINTS: Partial<Record<AskInput['type'], string>> = {
  NUMBER: 'a number',
  DATE: 'YYYY-MM-DD',
};

function textField(i: ModalInput): DiscordTextInput {
  const hint = i.placeholder ?? (i.options ? `one of: ${i.options.join(', ')}` : HINTS[i.type]);
  return {
    type: 4,
    custom_id: i.key,
    style: i.multiline ? 2 : 1,
    required: i.required,
    max_length: INPUT_VALUE_MAX,
    ...(i.current !== undefined && i.current !== '' ? { value: i.current } : {}),
    ...(hint ? { placeholder: cut(hint, PLACEHOLDER_MAX) } : {}),
  };
}

/** Whether `values` fit as options (unique, at most 100 characters each: values are never cut). */
const fitsOptions = (values: string[], max: number) =>
  values.length >= 1 && values.length <= max && values.every((v) => v.length <= OPTION_TEXT_MAX);

/** The component of one input: which Discord draws it with (see the module comment). */
function fieldComponent(i: ModalInput): DiscordLabel['component'] {
  if (i.type === 'BOOLEAN' && (i.current === 'true' || i.current === 'false'))
    return { type: 23, custom_id: i.key, default: i.current === 'true' };
  if (i.type === 'BOOLEAN')
    return {
      type: 21,
      custom_id: i.key,
      required: i.required,
      options: [
        { label: 'Yes', value: 'yes' },
        { label: 'No', value: 'no' },
      ],
    };
  const values = i.type === 'DROPDOWN' ? (i.options ?? []) : [];
  const options = values.map((v) => ({ label: v, value: v }));
  if (values.length >= RADIO_MIN_OPTIONS && fitsOptions(values, RADIO_MAX_OPTIONS))
    return { type: 21, custom_id: i.key, required: i.required, options };
  if (fitsOptions(values, SELECT_MAX_OPTIONS))
    return {
      type: 3,
      custom_id: i.key,
      required: i.required,
      min_values: i.required ? 1 : 0,
      max_values: 1,
      options,
    };
  return textField(i);
}

/** The Label-wrapped field of one ask input. */
export function modalField(i: ModalInput): DiscordLabel {
  const component = fieldComponent(i);
  // A text input shows its hint as a placeholder; the others say it under the label.
  const description = component.type !== 4 && i.placeholder ? i.placeholder : undefined;
  return {
    type: 18,
    label: cut(i.label, LABEL_MAX),
    ...(description ? { description: cut(description, DESCRIPTION_MAX) } : {}),
    component,
  };
}

/** One submitted component's value as text: what a person would have typed for it. */
function submittedText(c: Record<string, unknown>): string | null {
  if (typeof c.value === 'string') return c.value;
  if (typeof c.value === 'boolean') return String(c.value);
  if (c.type === 21 && c.value === null) return '';
  if (Array.isArray(c.values)) return typeof c.values[0] === 'string' ? c.values[0] : '';
  return null;
}

/**
 * A MODAL_SUBMIT's components as { custom_id: text }: Label-wrapped components (`component`) and
 * the older action rows of text inputs (`components`) alike.
 */
export function modalValues(components: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(components)) return out;
  const add = (c: unknown) => {
    const o = (c ?? {}) as Record<string, unknown>;
    const text = typeof o.custom_id === 'string' ? submittedText(o) : null;
    if (text !== null) out[o.custom_id as string] = text;
  };
  for (const top of components as Array<{ component?: unknown; components?: unknown }>) {
    if (top?.component) add(top.component);
    if (Array.isArray(top?.components)) top.components.forEach(add);
  }
  return out;
}
