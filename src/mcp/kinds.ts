/**
 * The ten MCP tools, one per interaction kind: the name and description a model picks by, the
 * content arguments it sends (as JSON Schema, from zod) and the typed answer it gets back. These
 * schemas describe; the asks service checks (asks-service/asks.ts, the same checks as POST /v1/asks).
 * Pure.
 */
import { z } from 'zod';
import { ASK_LIMITS, type AskKind, FIELD_TYPES } from '../asks/content.ts';

const key = z.string().max(64).describe('A short id, 1-64 of A-Z a-z 0-9 _ . : -');
const label = z.string().max(ASK_LIMITS.label).describe('What the person reads');
const hint = z.string().max(ASK_LIMITS.text).optional();
const value = z.union([z.string(), z.number(), z.boolean()]);
const typed = z.enum(FIELD_TYPES);

const prompt = z
  .string()
  .max(ASK_LIMITS.prompt)
  .describe('The question, written for the person who answers it (they see it in their chat)');
const choice = z.strictObject({
  key,
  label,
  irreversible: z.boolean().optional().describe('True when this choice cannot be undone'),
  impact_hint: hint.describe('What happens when this choice is taken'),
});
const option = z.strictObject({
  key,
  label,
  description: hint,
  irreversible: z.boolean().optional(),
  impact_hint: hint,
});
const options = (min: number) =>
  z.array(option).min(min).max(ASK_LIMITS.options).describe('What the person picks from');

/** The typed answer of each kind (result.data of the ask). */
const ANSWERS = {
  'approval.binary': z.object({ decision: z.string().describe('The key of the choice taken') }),
  'approval.modify': z.object({
    decision: z.string().describe('The key of the choice taken'),
    values: z.record(z.string(), value).optional().describe('Only the fields the person edited'),
  }),
  'decision.single': z.object({ selected: z.string().describe('The key of the option picked') }),
  'decision.multi': z.object({ selected: z.array(z.string()).describe('Keys of the options') }),
  'decision.rank': z.object({ ranking: z.array(z.string()).describe('Every key, first = best') }),
  'context.freetext': z.object({ value: z.string() }),
  'context.form': z.object({ values: z.record(z.string(), value).describe('By field key') }),
  'context.confirm': z.object({ confirmed: z.boolean() }),
  'edit.content': z.object({ content: z.string().describe('The text as the person left it') }),
  'edit.tool_args': z.object({
    args: z.record(z.string(), value).describe('Every argument, edited or not'),
  }),
} satisfies Record<AskKind, z.ZodType>;

/** One tool: how a model finds it and what it sends and gets. */
export interface KindTool {
  kind: AskKind;
  name: string;
  title: string;
  description: string;
  /** The kind's content arguments (prompt and the rest), without target or timeout. */
  content: z.ZodRawShape;
  answer: z.ZodType;
}

const tool = (
  kind: AskKind,
  name: string,
  title: string,
  description: string,
  content: z.ZodRawShape,
): KindTool => ({ kind, name, title, description, content, answer: ANSWERS[kind] });

/** The ten tools, in the order of ALL_KINDS. */
export const KIND_TOOLS: readonly KindTool[] = [
  tool(
    'approval.binary',
    'ask_approval',
    'Ask a person to approve or reject',
    'Ask a person in their chat (Slack, Telegram, Discord, Teams, web chat) to approve or reject something before you do it. Waits for their answer (minutes to days) and returns the key of the button they pressed. Use before irreversible or risky actions.',
    {
      prompt,
      choices: z
        .array(choice)
        .min(1)
        .max(ASK_LIMITS.choices)
        .optional()
        .describe('The buttons; default Approve (key approve) and Reject (key reject)'),
    },
  ),
  tool(
    'approval.modify',
    'ask_approval_with_edits',
    'Ask a person to approve, after editing values',
    'Ask a person to approve or reject, with values they may correct first (an amount, a date, a note). Returns the choice and only the values they changed.',
    {
      prompt,
      choices: z.array(choice).min(1).max(ASK_LIMITS.choices),
      modifiable: z
        .array(
          z.strictObject({
            key,
            label,
            type: typed,
            value: z
              .union([value, z.array(z.string())])
              .describe('The proposed value; for DROPDOWN the list of allowed values'),
          }),
        )
        .max(ASK_LIMITS.fields),
    },
  ),
  tool(
    'decision.single',
    'ask_choose_one',
    'Ask a person to choose one option',
    'Ask a person to pick exactly one of several options. Returns the key of the option picked.',
    { prompt, options: options(1) },
  ),
  tool(
    'decision.multi',
    'ask_choose_many',
    'Ask a person to choose several options',
    'Ask a person to pick several of a list of options (between min_select and max_select). Returns the keys picked, in the order of the options.',
    {
      prompt,
      options: options(1),
      min_select: z.number().int().min(0).optional().describe('Default 1'),
      max_select: z.number().int().min(1).optional().describe('Default: no upper limit'),
    },
  ),
  tool(
    'decision.rank',
    'ask_rank',
    'Ask a person to rank options',
    'Ask a person to put options in order of preference. Returns every key, best first.',
    { prompt, options: options(2) },
  ),
  tool(
    'context.freetext',
    'ask_free_text',
    'Ask a person for a written answer',
    'Ask a person a question only they can answer, in their own words. Returns the text they wrote.',
    {
      prompt,
      input: z
        .strictObject({ label, placeholder: hint })
        .describe('The text box: its label and an example of what to write'),
    },
  ),
  tool(
    'context.form',
    'ask_form',
    'Ask a person to fill in a form',
    'Ask a person for several typed values at once (text, numbers, yes/no, dates, a pick from a list). Returns the values by field key.',
    {
      prompt,
      fields: z
        .array(
          z.strictObject({
            key,
            label,
            type: typed,
            required: z.boolean().optional(),
            placeholder: hint,
            options: z.array(z.string()).optional().describe('DROPDOWN only: the allowed values'),
          }),
        )
        .min(1)
        .max(ASK_LIMITS.fields),
    },
  ),
  tool(
    'context.confirm',
    'ask_confirm',
    'Ask a person to confirm a statement',
    'Ask a person to confirm that a statement is true (or decline). Returns confirmed true or false.',
    {
      prompt,
      statement: z.string().max(ASK_LIMITS.statement).optional().describe('What they confirm'),
    },
  ),
  tool(
    'edit.content',
    'ask_edit_content',
    'Ask a person to check and edit a draft',
    'Show a person a draft you wrote (an email, a message, a summary) to correct before you use it. Returns the text as they left it.',
    { prompt, draft: z.string().max(ASK_LIMITS.draft) },
  ),
  tool(
    'edit.tool_args',
    'ask_edit_tool_args',
    'Ask a person to check the arguments of a tool call',
    'Before calling a tool, show a person its arguments to correct or accept. Returns every argument, edited or not; call the tool with those.',
    {
      prompt,
      tool_name: z.string().max(ASK_LIMITS.toolName).describe('The tool you are about to call'),
      args: z
        .array(
          z.strictObject({
            key,
            label,
            type: z.enum(['STRING', 'NUMBER', 'BOOLEAN', 'DATE']),
            value,
            editable: z.boolean().optional().describe('Default true'),
          }),
        )
        .min(1)
        .max(ASK_LIMITS.fields),
    },
  ),
];

/** The tool of a kind. */
export function toolOf(kind: AskKind): KindTool {
  return KIND_TOOLS.find((t) => t.kind === kind) as KindTool;
}
