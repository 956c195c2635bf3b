/** The poll response of spec section 8, its ETag, and the answer to If-None-Match. */
import type { ReviewCase } from './types.ts';

/** The poll body's shape; bump it when pollBody changes, so no old ETag matches a new body. */
const POLL_FORMAT = 1;

/** The poll body for a case in any of the six statuses (poll-response.schema.json). */
export function pollBody(kase: ReviewCase): Record<string, unknown> {
  const body: Record<string, unknown> = {
    status: kase.status,
    case_id: kase.case_id,
    created_at: kase.created_at,
  };
  switch (kase.status) {
    case 'pending':
    case 'opened':
    case 'in_progress':
      if (kase.opened_at) body.opened_at = kase.opened_at;
      body.expires_at = kase.expires_at;
      if (kase.status === 'in_progress' && kase.progress) body.progress = kase.progress;
      if (kase.reminder_sent_at) body.reminder_sent_at = kase.reminder_sent_at;
      break;
    case 'completed':
      if (kase.opened_at) body.opened_at = kase.opened_at;
      body.completed_at = kase.completed_at;
      body.result = kase.result;
      if (kase.responded_by) body.responded_by = kase.responded_by;
      if (kase.submission_context) body.submission_context = kase.submission_context;
      break;
    case 'expired':
      body.expired_at = kase.expired_at;
      body.default_action = kase.default_action;
      break;
    case 'cancelled':
      body.cancelled_at = kase.cancelled_at;
      if (kase.reason) body.reason = kase.reason;
      break;
  }
  // A follow-up link may be added after the case ended (an agent-created next round).
  if (kase.next_case_id) body.next_case_id = kase.next_case_id;
  return body;
}

/**
 * A strong ETag: the case's version. The poll body is a function of the stored case alone and every
 * change to the case is a commit that bumps the version, so one version is always the same bytes
 * and any visible change produces a new tag; a poll answered 304 never reads or hashes the case.
 */
export function etagFor(caseId: string, version: number): string {
  return `"${caseId}.${POLL_FORMAT}.${version}"`;
}

/** Whether an If-None-Match header names `etag` (weak or strong form, lists, or `*`). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const tag = part.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}
