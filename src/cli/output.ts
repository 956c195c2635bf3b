/** What the CLI prints: short human-readable lines, or JSON with --json; errors name the failing field. */
import { approvalOf, endedByPolicy } from '../client/outcome.ts';
import { RelayError } from '../client/relay-client.ts';
import type { CaseView } from '../client/types.ts';
import { ValidationError } from '../errors.ts';
import { reportedBy } from '../protocol/claims.ts';

/** Where the CLI writes (process streams, or buffers in tests). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** A failure the CLI reports and exits on (1 for a failed operation, 2 for a usage error). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly details: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Prints an error: "hitl-relay <command>: <message>" and one "  <path>: <message>" line per field. */
export function printError(io: Io, command: string, err: unknown, json: boolean): number {
  const e =
    err instanceof CliError
      ? err
      : err instanceof ValidationError
        ? new CliError(err.message, 1, err.details)
        : err instanceof RelayError
          ? new CliError(err.message, 1, err.details)
          : new CliError((err as Error).message ?? String(err));
  if (json)
    io.err(`${JSON.stringify({ error: e.message, details: e.details, exit_code: e.exitCode })}\n`);
  else {
    io.err(`hitl-relay${command ? ` ${command}` : ''}: ${headOf(e)}\n`);
    for (const d of e.details) io.err(`  ${d.path || '(root)'}: ${d.message}\n`);
  }
  return e.exitCode;
}

/**
 * The message without the summary of its first field ("invalid hitl object: x.y must be ..."
 * (+1 more)"), when the field lines below say it: each clause is printed once.
 */
function headOf(e: CliError): string {
  const first = e.details[0];
  if (!first) return e.message;
  for (const clause of [`${first.path} ${first.message}`, `${first.path}: ${first.message}`]) {
    const at = e.message.indexOf(clause);
    if (at > 0) return `${e.message.slice(0, at).replace(/[\s:]+$/, '')}:`;
  }
  return e.message;
}

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

function person(v: CaseView): string | null {
  const s = v.submitted_by;
  // A claim, never verified identity (protocol/claims.ts): the line says who reported it.
  if (s) return `${s.display_name ?? s.platform_user_id} (${reportedBy(s)})`;
  const r = v.responded_by;
  return r ? (r.name ?? r.email ?? null) : null;
}

/** A case as a few aligned lines. */
export function formatCase(v: CaseView): string {
  const lines = [
    `${v.id}  ${v.status}${v.final ? ' (final)' : ''}  ${v.type}  ${clip(v.prompt, 80)}`,
  ];
  const row = (k: string, val: string) => lines.push(`  ${`${k}:`.padEnd(10)}${val}`);
  row('target', v.target);
  row('service', `${v.service}  case ${v.case_id}`);
  if (v.result) {
    const who = person(v);
    row('result', `${v.result.action}${who ? `  by ${who}` : ''}`);
    if (v.result.data && Object.keys(v.result.data).length)
      row('data', clip(JSON.stringify(v.result.data), 200));
  }
  if (v.reason) row('reason', v.reason);
  if (v.default_action) row('default', v.default_action);
  for (const m of v.messages)
    row(
      'message',
      `${m.target} ${m.state}${m.current ? '' : ' (shows an earlier status; its edit is pending)'}${m.error ? `: ${m.error}` : ''}`,
    );
  row('expires', v.expires_at);
  return `${lines.join('\n')}\n`;
}

/** Cases as a table, newest first. */
export function formatCases(cases: CaseView[]): string {
  if (!cases.length) return 'no cases\n';
  const rows = cases.map((c) => [
    c.id,
    c.status,
    c.type,
    c.target,
    c.created_at,
    clip(c.prompt, 50),
  ]);
  const head = ['ID', 'STATUS', 'TYPE', 'TARGET', 'CREATED', 'PROMPT'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}

/** Exit codes of `--wait` / `--require-approval` (documented in docs/cli.md). */
export const EXIT = {
  ok: 0,
  failed: 1,
  notApproved: 1,
  usage: 2,
  notFinal: 3,
  expired: 4,
} as const;

/** One line saying how a waited-for case ended and who decided (for a gate's log). */
export function verdictLine(v: CaseView): string {
  const a = approvalOf(v);
  // Nobody decided: the ladder's policy answer, said as a timeout policy.
  if (endedByPolicy(v)) return `not approved: ${a.reason}`;
  if (!v.final) return `not final yet: the case is ${v.status}`;
  if (v.status !== 'completed' || !v.result) return `not approved: ${a.reason ?? v.status}`;
  const who = person(v);
  const said = ['reason', 'feedback', 'comment', 'note']
    .map((k) => v.result?.data?.[k])
    .find((x): x is string => typeof x === 'string' && x.trim() !== '');
  return `${a.approved ? 'approved' : 'not approved'}: ${v.result.action}${who ? ` by ${who}` : ''}${said ? ` ("${clip(said, 120)}")` : ''}`;
}

/** The exit code after waiting: without `requireApproval`, 0 once final; with it, 0 only when approved. */
export function waitExitCode(v: CaseView, requireApproval: boolean): number {
  // A timeout policy ended the wait: like an expiry, never an approval.
  if (endedByPolicy(v)) return requireApproval ? EXIT.expired : EXIT.ok;
  if (!v.final) return EXIT.notFinal;
  if (!requireApproval) return EXIT.ok;
  if (v.status === 'expired') return EXIT.expired;
  return approvalOf(v).approved ? EXIT.ok : EXIT.notApproved;
}
