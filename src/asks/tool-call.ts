/**
 * A gated MCP tool call as an ask carries it (`context.tool_call`, written by the gateway's tool
 * gate): the upstream, the tool, the calling client, the arguments as the client sent them, which
 * ask field shows which argument, and the tool's inputSchema. Three things read it: the asks
 * service (an edited answer is checked against the schema before it is recorded, so a person whose
 * edit does not fit is told at once), the gate (what to send), and receipts (the SHA-256 of what
 * was sent). One function, `argumentsSent`, says what is sent, so the three agree. Pure.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import ajv2020 from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { ValidationIssue } from '../errors.ts';

// ajv and ajv-formats are CommonJS: the default import is module.exports, whose `default` is the
// class (and the plugin) itself.
const Ajv2020 = ajv2020.default;
const addFormats = ajvFormats.default;

/** One ask field of an approval.modify tool call: which argument it shows. */
export interface ToolCallField {
  /** The ask field's key (the argument's name when it is a valid key). */
  key: string;
  /** The argument's name. */
  arg: string;
  /** Whether the person may change it (else a changed value is refused). */
  editable: boolean;
}

/** `context.tool_call` of a gated call's ask. */
export interface ToolCallContext {
  upstream: string;
  tool: string;
  /** The calling client's API key name (null: the relay's one key or the local default). */
  client: string | null;
  /** The arguments as the client sent them. */
  arguments: Record<string, unknown>;
  /** approval.modify asks: the field of each argument. Absent: shown read-only (confirm). */
  fields?: ToolCallField[];
  /** The tool's inputSchema (tools/list); edits are checked against it. */
  input_schema?: Record<string, unknown>;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tool call a case's context carries, if any. */
export function toolCallOf(context: unknown): ToolCallContext | undefined {
  const tc = isRecord(context) ? context.tool_call : undefined;
  if (!isRecord(tc) || typeof tc.upstream !== 'string' || typeof tc.tool !== 'string')
    return undefined;
  if (!isRecord(tc.arguments)) return undefined;
  return tc as unknown as ToolCallContext;
}

/** An answer's data as the two gated kinds record it (context.confirm, approval.modify). */
type Answer = { confirmed?: unknown; decision?: unknown; values?: unknown };

/**
 * The arguments to send for an answer: the client's, with the person's edits of editable fields;
 * null when the answer does not approve the call (rejected, cancelled, not a gated kind's answer).
 */
export function argumentsSent(tc: ToolCallContext, data: unknown): Record<string, unknown> | null {
  const a = (isRecord(data) ? data : {}) as Answer;
  if (a.confirmed === true) return { ...tc.arguments };
  if (a.decision !== 'approve') return null;
  const values = isRecord(a.values) ? a.values : {};
  const out = { ...tc.arguments };
  for (const f of tc.fields ?? [])
    if (f.editable && values[f.key] !== undefined) out[f.arg] = values[f.key];
  return out;
}

/** Compiled schemas by their JSON (a tool's schema is compiled once per process, bounded). */
const compiled = new Map<string, ValidateFunction | Error>();
const COMPILED_MAX = 256;
let ajv: InstanceType<typeof Ajv2020> | undefined;

/** The validator of a tool's inputSchema, or the error that keeps it from compiling. */
export function inputValidator(schema: Record<string, unknown>): ValidateFunction | Error {
  // Draft 2020-12 is MCP's default dialect; a `$schema` naming another is read as 2020-12 too.
  const { $schema: _dialect, ...rest } = schema;
  const key = JSON.stringify(rest);
  const hit = compiled.get(key);
  if (hit) return hit;
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
  }
  let v: ValidateFunction | Error;
  try {
    v = ajv.compile(rest);
  } catch (err) {
    v = new Error(`the tool's inputSchema does not compile: ${(err as Error).message}`);
  }
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, v);
  return v;
}

/** An ajv error as a person reads it, at the field that shows the argument. */
function schemaIssue(tc: ToolCallContext, e: ErrorObject): ValidationIssue {
  const arg = decodeURIComponent(e.instancePath.split('/')[1] ?? '').replace(/~1/g, '/');
  const field = tc.fields?.find((f) => f.arg === arg);
  const rest = e.instancePath.split('/').slice(2).join('.');
  const path = field ? `data.values.${field.key}${rest ? `.${rest}` : ''}` : 'data.values';
  const what = field ? '' : arg ? `${arg}: ` : '';
  return {
    path,
    message: `${what}${e.message ?? 'does not fit the tool'} (the tool's inputSchema)`,
  };
}

/**
 * What is wrong with an approving answer of a gated call: a changed read-only argument, or edited
 * arguments the tool's inputSchema refuses. Empty for an answer that does not approve.
 */
export function toolCallAnswerIssues(tc: ToolCallContext, data: unknown): ValidationIssue[] {
  const sent = argumentsSent(tc, data);
  if (!sent) return [];
  const values = isRecord((data as Answer).values) ? ((data as Answer).values as object) : {};
  const issues: ValidationIssue[] = [];
  for (const f of tc.fields ?? [])
    if (!f.editable && (values as Record<string, unknown>)[f.key] !== undefined)
      issues.push({
        path: `data.values.${f.key}`,
        message: `read-only: ${f.arg} is sent as the client gave it`,
      });
  if (issues.length || !tc.input_schema) return issues;
  const edited = (tc.fields ?? []).some(
    (f) => f.editable && (values as Record<string, unknown>)[f.key] !== undefined,
  );
  // The client's own arguments go to the server as they are (it judges them); edits are ours.
  if (!edited) return [];
  const v = inputValidator(tc.input_schema);
  if (v instanceof Error) return [{ path: 'data.values', message: v.message }];
  return v(sent) ? [] : (v.errors ?? []).map((e) => schemaIssue(tc, e));
}
