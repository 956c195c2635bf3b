/**
 * The ask of a held tool call: what a person reads and answers. Without edits it is a
 * context.confirm whose statement lists the tool, the upstream, the calling client and every
 * argument in full (Confirm sends, Cancel refuses); with edits it is an approval.modify
 * (Approve / Reject) with one field per argument, the editable ones typed as the value is, the
 * others marked read-only (the asks service refuses a change to them, and an edit the tool's
 * inputSchema refuses: asks/tool-call.ts). A call whose arguments cannot be shown in full is not
 * asked at all: nobody approves what they cannot read. Pure.
 */
import { ASK_LIMITS, type AskContentInput, type FieldType } from '../asks/content.ts';
import type { ToolCallContext, ToolCallField } from '../asks/tool-call.ts';
import { clientName } from './callers.ts';

/** What the gate asks about. */
export interface HeldCall {
  upstream: string;
  tool: string;
  client: string | null;
  args: Record<string, unknown>;
  inputSchema?: Record<string, unknown> | undefined;
  /** Which arguments the person may change (true: every string, number or boolean one). */
  edit: boolean | string[];
}

/** The ask content and the tool call it carries, or why the call cannot be shown. */
export type HeldAsk =
  | { ok: true; content: AskContentInput; toolCall: ToolCallContext }
  | { ok: false; problem: string };

const FIELD_KEY = /^[A-Za-z0-9_.:-]{1,64}$/;

/** An argument's value as one line of text. */
const shown = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null'));

/** The header every held call's ask starts with. */
function headLines(c: HeldCall): string[] {
  return [`Tool: ${c.tool}`, `Upstream: ${c.upstream}`, `Called by: ${clientName(c.client)}`];
}

function confirmAsk(c: HeldCall, base: ToolCallContext): HeldAsk {
  const names = Object.keys(c.args);
  const lines = [
    ...headLines(c),
    names.length ? 'Arguments:' : 'Arguments: none',
    ...names.map((n) => `• ${n}: ${JSON.stringify(c.args[n])}`),
  ];
  const statement = lines.join('\n');
  if (statement.length > ASK_LIMITS.statement)
    return {
      ok: false,
      problem: `its arguments are ${statement.length} characters, more than a chat card shows in full (${ASK_LIMITS.statement})`,
    };
  return {
    ok: true,
    content: {
      type: 'context',
      sub_type: 'confirm',
      prompt: `Run ${c.tool} on ${c.upstream}? Confirm sends the call with these arguments.`,
      statement,
    },
    toolCall: base,
  };
}

/** The field type of a value a person may edit, or null (objects, lists, null: read-only JSON). */
function editableType(v: unknown): FieldType | null {
  if (typeof v === 'string') return 'STRING';
  if (typeof v === 'number' && Number.isFinite(v)) return 'NUMBER';
  if (typeof v === 'boolean') return 'BOOLEAN';
  return null;
}

function modifyAsk(c: HeldCall, base: ToolCallContext): HeldAsk {
  const names = Object.keys(c.args);
  if (!names.length) return confirmAsk(c, base);
  if (names.length > ASK_LIMITS.fields)
    return {
      ok: false,
      problem: `it has ${names.length} arguments (a card shows ${ASK_LIMITS.fields})`,
    };
  const fields: ToolCallField[] = [];
  const modifiable = names.map((arg, i) => {
    const v = c.args[arg];
    const type = editableType(v);
    const wanted = c.edit === true || (Array.isArray(c.edit) && c.edit.includes(arg));
    const editable = wanted && type !== null;
    const key = FIELD_KEY.test(arg) ? arg : `arg_${i + 1}`;
    fields.push({ key, arg, editable });
    const label = `${arg.slice(0, 150)}${editable ? '' : ' (read-only)'}`;
    return { key, label, type: type ?? 'STRING', value: type ? v : shown(v) };
  });
  const long = modifiable.find(
    (f) => typeof f.value === 'string' && f.value.length > ASK_LIMITS.value,
  );
  if (long)
    return {
      ok: false,
      problem: `argument ${long.label} is longer than a chat card shows in full (${ASK_LIMITS.value} characters)`,
    };
  const prompt = `${headLines(c).join(' · ')}. Approve sends the call with these arguments.`;
  return {
    ok: true,
    content: {
      type: 'approval',
      sub_type: 'modify',
      prompt: prompt.slice(0, ASK_LIMITS.prompt),
      choices: [
        { key: 'approve', label: 'Approve' },
        { key: 'reject', label: 'Reject' },
      ],
      modifiable,
    },
    toolCall: { ...base, fields },
  };
}

/** The ask of a held call. */
export function heldAsk(c: HeldCall): HeldAsk {
  const base: ToolCallContext = {
    upstream: c.upstream,
    tool: c.tool,
    client: c.client,
    arguments: c.args,
    ...(c.inputSchema ? { input_schema: c.inputSchema } : {}),
  };
  const wantsEdits = c.edit === true || (Array.isArray(c.edit) && c.edit.length > 0);
  return wantsEdits ? modifyAsk(c, base) : confirmAsk(c, base);
}
