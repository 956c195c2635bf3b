/**
 * The inputs of the kinds that take typing (freetext, form, the draft, tool args, modifiable
 * fields): one mapping from content to inputs that Telegram's field-by-field flow and Discord's
 * modal both draw from, and the answer their collected values make. Pure: no I/O, no SDK.
 */
import { type AskAnswer, actionFor } from './answer.ts';
import type { AskContent, FieldType, FieldValue } from './content.ts';
import { protocolOf } from './protocol.ts';

/**
 * One value a person types or picks to answer a kind that takes input (freetext, form fields,
 * the draft, editable tool args, modifiable fields): the one mapping every chat's modal or
 * field-by-field flow draws from, so they agree on keys, types and what is prefilled.
 */
export interface AskInput {
  /** The key in the answer (`value`, `content`, or the field / arg key). */
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  /** Long text (freetext, drafts): drawn multiline where the platform can. */
  multiline?: boolean;
  /** The value it holds now (drafts, tool args, modifiable fields other than DROPDOWN). */
  current?: FieldValue;
  /** DROPDOWN: the values to pick one from. */
  options?: string[];
  placeholder?: string;
}

const withPlaceholder = (p: string | undefined) => (p ? { placeholder: p } : {});

/** The inputs of a kind in the content's order; [] for kinds answered without typing. */
export function askInputs(c: AskContent): AskInput[] {
  if (c.type === 'context' && c.sub_type === 'freetext')
    return [
      {
        key: 'value',
        label: c.input.label,
        type: 'STRING',
        required: true,
        multiline: true,
        ...withPlaceholder(c.input.placeholder),
      },
    ];
  if (c.type === 'context' && c.sub_type === 'form')
    return c.fields.map((f) => ({
      key: f.key,
      label: f.label,
      type: f.type,
      required: f.required,
      ...(f.type === 'DROPDOWN' ? { options: f.options ?? [] } : {}),
      ...withPlaceholder(f.placeholder),
    }));
  if (c.type === 'edit' && c.sub_type === 'content')
    return [
      {
        key: 'content',
        label: 'Your version',
        type: 'STRING',
        required: true,
        multiline: true,
        current: c.draft,
      },
    ];
  if (c.type === 'edit')
    return c.args
      .filter((a) => a.editable)
      .map((a) => ({ ...fieldHead(a), current: a.value as FieldValue }));
  if (c.type === 'approval' && c.sub_type === 'modify')
    return c.modifiable.map((f) =>
      f.type === 'DROPDOWN'
        ? { ...fieldHead(f), options: f.value as string[] }
        : { ...fieldHead(f), current: f.value as FieldValue },
    );
  return [];
}

/** A modifiable field or tool arg as an optional input (left as it is unless changed). */
const fieldHead = (f: { key: string; label: string; type: FieldType }) => ({
  key: f.key,
  label: f.label,
  type: f.type,
  required: false,
});

/**
 * The answer of a modal or field-by-field flow: the values by input key (askInputs) shaped as the
 * kind's data, with its action; an approval's decision is given apart. Null for other kinds.
 */
export function inputsAnswer(
  c: AskContent,
  values: Record<string, unknown>,
  decision?: string,
): { action: string; data: Record<string, unknown> } | null {
  let data: Record<string, unknown>;
  if (c.type === 'context' && c.sub_type !== 'confirm')
    data = c.sub_type === 'freetext' ? { value: values.value ?? '' } : { values };
  else if (c.type === 'edit')
    data = c.sub_type === 'content' ? { content: values.content ?? '' } : { args: values };
  else if (c.type === 'approval' && c.sub_type === 'modify' && decision !== undefined)
    data = Object.keys(values).length ? { decision, values } : { decision };
  else return null;
  return { action: answerAction(c, data), data };
}

/** The protocol action an answer's data is submitted with (answer.ts's actionFor, for platforms). */
export function answerAction(c: AskContent, data: Record<string, unknown>): string {
  return actionFor(c, data as AskAnswer);
}

/**
 * The action a person's first step in a multi-step answer is checked with (AdapterContext.mayAnswer)
 * before the answer, and so its action, is known: one the kind can be answered with.
 */
export function probeAction(content: AskContent): string {
  return protocolOf(content).actions[0] ?? 'submit';
}
