/**
 * A tool call's arguments as the body of an ask (what POST /v1/asks takes), and the asks service's
 * refusals in the tool's own words: the field as the model sent it ("choices[0].key", not
 * "content.choices[0].key"; "timeout_seconds", not "expires_in"). Pure.
 */
import { z } from 'zod';
import { MAX_ASK_SECONDS } from '../asks-service/asks.ts';
import type { ValidationIssue } from '../errors.ts';
import type { KindTool } from './kinds.ts';

/** The arguments every ask tool takes besides its content. */
export const commonArguments = {
  target: z
    .string()
    .max(300)
    .optional()
    .describe(
      'Which chat to ask in: "platform:address" (slack:C0123ABC, telegram:-100123, discord:123, teams:<conversation>, web:<room>) or "route:<name>"; default: the target this MCP connection was configured with',
    ),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_ASK_SECONDS)
    .optional()
    .describe('How long the person has to answer (default one day, at most 30 days)'),
  on_timeout: z
    .enum(['skip', 'approve', 'reject', 'abort'])
    .optional()
    .describe(
      'What the ask reports when nobody answers in time (approvals default to reject; never an approval unless you choose one)',
    ),
};

/** A tool's arguments, as the SDK hands them over. */
export type ToolArguments = Record<string, unknown>;

/** The ask body for a call of `tool` (undefined fields left out, so the checks see what was sent). */
export function askBodyOf(tool: KindTool, args: ToolArguments, defaultTarget: string | undefined) {
  const { target, timeout_seconds, on_timeout, ...content } = args;
  const [type, sub_type] = tool.kind.split('.');
  const body: Record<string, unknown> = {
    target: target ?? defaultTarget,
    content: { type, sub_type, ...content },
  };
  if (timeout_seconds !== undefined) body.expires_in = timeout_seconds;
  if (on_timeout !== undefined) body.default = on_timeout;
  return body;
}

/** Field names of the ask body, by the argument the model sent. */
const RENAMED: Record<string, string> = { expires_in: 'timeout_seconds', default: 'on_timeout' };

/** An issue of the asks service, named as the tool's argument. */
export function argumentIssue(i: ValidationIssue): ValidationIssue {
  const path = i.path.startsWith('content.') ? i.path.slice('content.'.length) : i.path;
  return { path: RENAMED[path] ?? path, message: i.message };
}

/** The tool error text: each field that is wrong and what to send. */
export function refusalText(issues: ValidationIssue[]): string {
  const lines = issues.map((i) => `- ${i.path}: ${i.message}`);
  return `The ask was not sent (nothing was stored). Fix these arguments and call again:\n${lines.join('\n')}`;
}

/** The issue when no target was given and none is configured. */
export const NO_TARGET: ValidationIssue = {
  path: 'target',
  message:
    'is required: give "platform:address" (e.g. slack:C0123ABC) or "route:<name>", or configure a default target on the MCP connection (?target= on the URL, --target for stdio)',
};
