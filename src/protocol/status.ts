/** Poll responses, SSE events and callbacks, all read into one `StatusUpdate` (spec sections 8, 8.5, 9). */
import { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { toIssues } from './issues.ts';
import {
  CASE_STATUSES,
  type CaseResult,
  type CaseStatus,
  isTerminal,
  type Progress,
  type RespondedBy,
} from './types.ts';

const dateTime = z.iso.datetime({ offset: true });
const result = z.looseObject({
  action: z.string().min(1).max(64),
  data: z.record(z.string(), z.unknown()).optional(),
});
const progress = z.looseObject({
  current_step: z.number().int().min(1).optional(),
  total_steps: z.number().int().min(1).optional(),
  completed_fields: z.number().int().min(0).optional(),
  total_fields: z.number().int().min(0).optional(),
});
const respondedBy = z.looseObject({
  name: z.string().max(200).optional(),
  email: z.string().max(320).optional(),
});

const fields = {
  case_id: z.string().min(1).max(255),
  created_at: dateTime.optional(),
  opened_at: dateTime.optional(),
  expires_at: dateTime.optional(),
  completed_at: dateTime.optional(),
  expired_at: dateTime.optional(),
  cancelled_at: dateTime.optional(),
  result: result.optional(),
  responded_by: respondedBy.optional(),
  submission_context: z
    .looseObject({ verification_result: z.looseObject({}).optional() })
    .optional(),
  progress: progress.optional(),
  next_case_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .max(255)
    .optional(),
  default_action: z.string().max(64).optional(),
  reason: z.string().max(1000).optional(),
};

const pollSchema = z
  .looseObject({ status: z.enum(CASE_STATUSES), ...fields })
  .superRefine((p, ctx) => {
    if (p.status === 'completed' && !p.result)
      ctx.addIssue({
        code: 'custom',
        path: ['result'],
        message: 'is required when status is completed',
      });
  });

/** The fields each v0.9 poll variant requires (poll-response.schema.json `oneOf`, v0.9 §8). */
const V09_REQUIRED: Readonly<Record<CaseStatus, readonly string[]>> = {
  pending: [],
  opened: [],
  in_progress: [],
  completed: ['result', 'completed_at'],
  expired: ['expired_at', 'default_action'],
  cancelled: ['cancelled_at'],
};
/** The answer's fields: only a completed case carries them in v0.9. */
const ANSWER_FIELDS = ['result', 'responded_by', 'submission_context'] as const;

/**
 * Why a poll body is not the v0.9 variant of its status ("completed without completed_at"), or
 * null when it is. v0.8 and earlier did not make the variants disjoint, so only a v0.9 case's polls
 * are held to it (service-client/poll.ts checkVariants); a body that is no poll body at all is
 * parsePollResponse's to refuse.
 */
export function v09VariantIssue(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const o = body as Record<string, unknown>;
  const status = o.status as CaseStatus;
  if (!Object.hasOwn(V09_REQUIRED, status)) return null;
  const missing = V09_REQUIRED[status].filter((f) => o[f] === undefined || o[f] === null);
  if (missing.length) return `${status} without ${missing.join(' and ')}`;
  const extra = status === 'completed' ? [] : ANSWER_FIELDS.filter((f) => o[f] !== undefined);
  if (extra.length) return `${status} with ${extra.join(' and ')} (only a completed case has them)`;
  return null;
}

/** A status change, however it arrived. */
export interface StatusUpdate {
  status: CaseStatus;
  case_id: string;
  result?: CaseResult;
  responded_by?: RespondedBy;
  /** How the answer was submitted (v0.8: browser_submit / inline_submit, who, verification). */
  submission_context?: Record<string, unknown>;
  /** v0.8 `submission_context.verification_result`: whether proof of human was satisfied. */
  verification_result?: Record<string, unknown>;
  progress?: Progress;
  next_case_id?: string;
  default_action?: string;
  reason?: string;
  expires_at?: string;
  /** When the status was reached (completed_at / expired_at / cancelled_at / opened_at). */
  at?: string;
}

function toUpdate(p: z.infer<typeof pollSchema>): StatusUpdate {
  const at = p.completed_at ?? p.expired_at ?? p.cancelled_at ?? p.opened_at;
  const u: StatusUpdate = { status: p.status, case_id: p.case_id };
  // Spec 8: result, responded_by and submission_context belong to a completed case. Some services
  // send them with pending/opened (after a failed transition); they are not an answer then.
  if (p.status === 'completed') {
    if (p.result) u.result = p.result as CaseResult;
    if (p.responded_by) u.responded_by = p.responded_by;
    if (p.submission_context) {
      u.submission_context = p.submission_context;
      const v = p.submission_context.verification_result;
      if (v) u.verification_result = v;
    }
  }
  if (p.progress) u.progress = p.progress;
  if (p.next_case_id) u.next_case_id = p.next_case_id;
  if (p.default_action) u.default_action = p.default_action;
  if (p.reason) u.reason = p.reason;
  if (p.expires_at) u.expires_at = p.expires_at;
  if (at) u.at = at;
  return u;
}

/** Parses a poll response body. */
export function parsePollResponse(body: unknown): StatusUpdate {
  const r = pollSchema.safeParse(body);
  if (!r.success)
    throw new ValidationError('invalid_poll_response', 'invalid poll response', toIssues(r.error));
  return toUpdate(r.data);
}

/** SSE event names and the status each one means (review.reminder means none). */
export const EVENT_STATUS: Readonly<Record<string, CaseStatus | null>> = {
  'review.opened': 'opened',
  'review.in_progress': 'in_progress',
  'review.completed': 'completed',
  'review.expired': 'expired',
  'review.cancelled': 'cancelled',
  'review.reminder': null,
};

/** An event from an SSE stream or a callback. */
export type ReviewEvent =
  | { kind: 'status'; update: StatusUpdate }
  /**
   * A terminal event whose data is missing or unreadable: the name alone is enough to look at
   * poll_url now (spec 8.5: the poll is the source of truth, the event only says "look").
   */
  | { kind: 'terminal'; status: CaseStatus; case_id: string | undefined }
  | { kind: 'reminder'; case_id: string; reminder_at?: string; message?: string }
  /** An event name the spec does not have (a newer version's, a service's own): ignored. */
  | { kind: 'unknown'; name: string };

const reminderSchema = z.looseObject({
  case_id: z.string().min(1).max(255),
  reminder_at: dateTime.optional(),
  message: z.string().max(1000).optional(),
});

/** Parses one SSE event (`event:` name and `data:` JSON text). */
export function parseReviewEvent(name: string, data: string): ReviewEvent {
  if (!Object.hasOwn(EVENT_STATUS, name)) return { kind: 'unknown', name: name.slice(0, 40) };
  const status = EVENT_STATUS[name];
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    if (status && isTerminal(status)) return { kind: 'terminal', status, case_id: undefined };
    throw new ValidationError('invalid_event', `invalid ${name} event`, [
      { path: 'data', message: 'is not JSON' },
    ]);
  }
  if (!status) {
    const r = reminderSchema.safeParse(json);
    if (!r.success)
      throw new ValidationError(
        'invalid_event',
        `invalid ${name} event`,
        toIssues(r.error, 'data'),
      );
    return { kind: 'reminder', ...r.data };
  }
  const r = pollSchema.safeParse({ ...(json as object), status });
  if (!r.success) {
    if (isTerminal(status)) {
      const id = (json as { case_id?: unknown } | null)?.case_id;
      return { kind: 'terminal', status, case_id: typeof id === 'string' ? id : undefined };
    }
    throw new ValidationError('invalid_event', `invalid ${name} event`, toIssues(r.error, 'data'));
  }
  return { kind: 'status', update: toUpdate(r.data) };
}

/** Parses a callback body (`{event, case_id, ...}`, spec section 9). */
export function parseCallback(body: unknown): ReviewEvent {
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof (body as { event?: unknown }).event !== 'string'
  )
    throw new ValidationError('invalid_callback', 'invalid callback', [
      { path: 'event', message: 'is required' },
    ]);
  const { event, ...rest } = body as { event: string };
  return parseReviewEvent(event, JSON.stringify(rest));
}

/** What a 200 answer to an inline submit says (spec 7.5: at least `{status, case_id, completed_at}`). */
export interface SubmitAnswer {
  /** The status the service reports, when it names a known one. */
  status: CaseStatus | undefined;
  /** The whole answer as a status update, when it is a complete one (a completed case with result). */
  update: StatusUpdate | undefined;
  completed_at: string | undefined;
}

/** Reads the body of a 2xx submit answer; lenient, since the spec asks only for three fields. */
export function readSubmitAnswer(body: unknown): SubmitAnswer {
  const o = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const full = pollSchema.safeParse(o);
  const status = (CASE_STATUSES as readonly unknown[]).includes(o.status)
    ? (o.status as CaseStatus)
    : undefined;
  const at = dateTime.safeParse(o.completed_at);
  return {
    status,
    update: full.success ? toUpdate(full.data) : undefined,
    completed_at: at.success ? at.data : undefined,
  };
}
