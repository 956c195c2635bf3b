/**
 * The field-by-field flow of a Telegram ask (freetext, content, form, modify, tool_args): its steps,
 * how a reply reads as a typed value, each step's prompt and buttons, and the finished answer.
 */
import type { InlineKeyboardButton } from 'grammy/types';
import type { AdapterStepStrings } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import {
  type AskContent,
  type FieldValue,
  isIsoDate,
  valueProblem,
} from '../../src/asks/content.ts';
import { type AskInput, askInputs, inputsAnswer } from '../../src/asks/inputs.ts';
import { askData, button, cut, describe } from './ask.ts';

/** English step words for callers without a context (tests, tools). */
const STEPS = stringsOf(null).asks.steps;

/** One step of the field flow: a value typed as a reply, or picked with a button. */
export interface Step extends Omit<AskInput, 'type' | 'multiline'> {
  /** CHOICE: the approval's decision at the end of a modify flow. */
  type: AskInput['type'] | 'CHOICE';
  /** Labels of `options` (CHOICE). */
  optionLabels?: string[];
}

/** The steps of the flow of a kind that has one (the shared inputs, then a modify's decision). */
export function flowSteps(content: AskContent, words: AdapterStepStrings = STEPS): Step[] {
  const steps: Step[] = askInputs(content).map(({ multiline: _, ...input }) => input);
  if (content.type === 'approval' && content.sub_type === 'modify')
    steps.push({
      key: '',
      label: words.yourDecision,
      type: 'CHOICE',
      required: true,
      options: content.choices.map((c) => c.key),
      optionLabels: content.choices.map((c) => describe(c)),
    });
  return steps;
}

/** A reply's text as the step's typed value, or why it is not one. */
export function readReply(
  step: Step,
  text: string,
  words: AdapterStepStrings = STEPS,
): { value: FieldValue } | { problem: string } {
  const t = text.trim();
  switch (step.type) {
    case 'BOOLEAN':
    case 'DROPDOWN':
    case 'CHOICE':
      return { problem: words.problems.useButtons };
    case 'NUMBER': {
      if (!/^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i.test(t))
        return { problem: words.problems.number };
      return { value: Number(t) };
    }
    case 'DATE':
      return isIsoDate(t) ? { value: t } : { problem: words.problems.date };
    default: {
      if (step.required && !t) return { problem: words.problems.empty };
      // A draft may be long (the answer check has its own limit); other strings are typed values.
      const why =
        step.key === 'content' && step.current !== undefined ? null : valueProblem('STRING', text);
      return why ? { problem: why } : { value: text };
    }
  }
}

/** The value of button `n` of a step (BOOLEAN: 1 yes, 0 no), or null. */
export function buttonValue(step: Step, n: number): FieldValue | null {
  if (step.type === 'BOOLEAN') return n === 1 ? true : n === 0 ? false : null;
  return step.options?.[n] ?? null;
}

/** The prompt text of a step (plain text; escaped by the caller). */
export function stepText(
  step: Step,
  index: number,
  total: number,
  words: AdapterStepStrings = STEPS,
): string {
  const lines = [`${total > 1 ? `(${index + 1}/${total}) ` : ''}${step.label}`];
  const how: Record<Step['type'], string> = {
    STRING: words.how.text,
    NUMBER: words.how.number,
    DATE: words.how.date,
    BOOLEAN: words.how.boolean,
    DROPDOWN: words.how.choice,
    CHOICE: words.how.choice,
  };
  lines.push(how[step.type]);
  if (step.placeholder) lines.push(words.example(step.placeholder));
  if (step.current !== undefined && step.type !== 'STRING')
    lines.push(words.now(String(step.current)));
  if (!step.required) lines.push(words.optional);
  return lines.join('\n');
}

/** The buttons under a step's prompt. */
export function stepRows(
  key: string,
  step: Step,
  words: AdapterStepStrings = STEPS,
): InlineKeyboardButton[][] {
  const rows: InlineKeyboardButton[][] = [];
  if (step.type === 'BOOLEAN')
    rows.push([button(words.yes, askData(key, 'v', 1)), button(words.no, askData(key, 'v', 0))]);
  if (step.type === 'DROPDOWN' || step.type === 'CHOICE')
    rows.push(
      ...(step.options ?? []).map((o, i) => [
        button(cut(step.optionLabels?.[i] ?? o), askData(key, 'v', i)),
      ]),
    );
  const tail: InlineKeyboardButton[] = [];
  if (step.current !== undefined) tail.push(button(words.keep, askData(key, 'k')));
  if (!step.required && step.current === undefined)
    tail.push(button(words.skip, askData(key, 's')));
  if (tail.length) rows.push(tail);
  return rows;
}

/** The answer of a finished flow: the values given (a modify's decision under the key ""). */
export function flowAnswer(
  content: AskContent,
  values: Record<string, FieldValue>,
): { action: string; data: Record<string, unknown> } {
  const { '': decision, ...rest } = values;
  return (
    inputsAnswer(content, rest, decision === undefined ? undefined : String(decision)) ?? {
      action: 'submit',
      data: {},
    }
  );
}
