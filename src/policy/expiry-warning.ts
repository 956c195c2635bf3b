/**
 * Expiry warnings ("nothing expires unnoticed"): a case may carry thresholds before its expires_at
 * (`EXPIRY_WARNING=15m`, a route's `expiry_warning: ["1h", "15m"]`, or the case's own at intake);
 * when one is reached and nobody has decided, every card of the case gets one short reply and the
 * agent an `expiring` notify event. Pure: the schema, the case's copy of its thresholds and which of
 * them are due; sending is watch/expiry-warnings.ts. A threshold already passed when the case
 * arrives is dropped at intake (a warning as the card appears says nothing the card does not).
 */
import { z } from 'zod';
import type { CaseStatus } from '../protocol/types.ts';
import { isTerminal } from '../protocol/types.ts';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const THIRTY_DAYS = 30 * 86_400;
/** At most this many thresholds per case (each one is a reply on every card). */
export const MAX_WARNINGS = 5;

/** Seconds of a duration like `15m`, `1h30m`, `90s` or `2d`; undefined when it is not one. */
export function durationSeconds(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m || !text.trim()) return undefined;
  const [, d, h, min, s] = m;
  const total =
    Number(d ?? 0) * UNITS.d! +
    Number(h ?? 0) * UNITS.h! +
    Number(min ?? 0) * UNITS.m! +
    Number(s ?? 0);
  return total > 0 ? total : undefined;
}

const durationSchema = z
  .string()
  .max(20)
  .transform((v, ctx) => {
    const s = durationSeconds(v);
    if (s === undefined || s > THIRTY_DAYS) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a duration like "15m", "1h30m" or "90s" (at most 30d)',
      });
      return z.NEVER;
    }
    return s;
  });

/**
 * Thresholds as configured or asked for: one duration, a comma-separated list, or an array; in
 * seconds before expiry, distinct, largest first.
 */
export const expiryWarningSchema = z
  .union([z.string().max(120), z.array(z.string()).min(1).max(MAX_WARNINGS)])
  .transform((v) =>
    (Array.isArray(v) ? v : v.split(',')).map((x) => x.trim()).filter((x) => x !== '' && x !== '0'),
  )
  .pipe(z.array(durationSchema).max(MAX_WARNINGS, `at most ${MAX_WARNINGS} thresholds`))
  .transform((list) => [...new Set(list)].sort((a, b) => b - a));

/** Thresholds in seconds before expiry, largest first. */
export type ExpiryThresholds = z.infer<typeof expiryWarningSchema>;

/** A case's expiry warnings: its thresholds and the warnings already recorded. */
export interface CaseExpiryWarnings {
  /** Seconds before expires_at, largest first. */
  before_s: number[];
  /** One entry per threshold reached, recorded (compare-and-set) before it is sent. */
  sent: Array<{ before_s: number; at: number }>;
}

/** What the warning rules read of a case. */
export interface WarnedCase {
  status: CaseStatus;
  doc: {
    hitl: { expires_at: string };
    expiry_warnings?: CaseExpiryWarnings | undefined;
    delivery_failed?: unknown;
    escalation?: { final?: { outcome?: string } } | undefined;
  };
}

/** The case's copy of `thresholds`, without those already passed at `now` (none left: undefined). */
export function caseExpiryWarnings(
  thresholds: ExpiryThresholds | undefined,
  expiresAt: string,
  now: number,
): CaseExpiryWarnings | undefined {
  const expires = Date.parse(expiresAt);
  const left = (thresholds ?? []).filter((s) => expires - s * 1000 > now);
  return left.length ? { before_s: left, sent: [] } : undefined;
}

/** Whether a case can still be warned: open, shown somewhere, its wait not ended by a ladder. */
export function warnable(c: WarnedCase): boolean {
  return (
    !isTerminal(c.status) && !c.doc.delivery_failed && c.doc.escalation?.final?.outcome !== 'policy'
  );
}

/** The thresholds (seconds) reached by `now` and not yet recorded, largest first. */
export function dueWarnings(c: WarnedCase, now: number): number[] {
  const w = c.doc.expiry_warnings;
  if (!w || !warnable(c)) return [];
  const expires = Date.parse(c.doc.hitl.expires_at);
  const sent = new Set(w.sent.map((s) => s.before_s));
  return w.before_s.filter((s) => !sent.has(s) && expires - s * 1000 <= now && expires > now);
}

/** When the next unrecorded warning is due (ms), or undefined. */
export function nextWarning(c: WarnedCase): number | undefined {
  const w = c.doc.expiry_warnings;
  if (!w || !warnable(c)) return undefined;
  const expires = Date.parse(c.doc.hitl.expires_at);
  const sent = new Set(w.sent.map((s) => s.before_s));
  const times = w.before_s.filter((s) => !sent.has(s)).map((s) => expires - s * 1000);
  return times.length ? Math.min(...times) : undefined;
}

/** How many warnings a case has recorded (the notify event and /wait compare it). */
export function warningsSent(c: { doc: { expiry_warnings?: CaseExpiryWarnings | undefined } }) {
  return c.doc.expiry_warnings?.sent.length ?? 0;
}

/** A threshold in words ("1 h 30 min", "15 min", "90 s"). */
export function durationWords(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = [d && `${d} d`, h && `${h} h`, m && `${m} min`, s && `${s} s`].filter(Boolean);
  return parts.join(' ') || '0 s';
}
