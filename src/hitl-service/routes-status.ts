/** The agent-facing poll (spec section 8): `GET /api/reviews/:id/status` with a strong ETag. */
import type { Hono } from 'hono';
import { mayRead, READ_REFUSED } from './binding.ts';
import type { ServiceDeps } from './context.ts';
import { errorBody } from './context.ts';
import { etagFor, matchesIfNoneMatch, pollBody } from './poll-answer.ts';
import { type ReviewCase, TERMINAL_STATUSES } from './types.ts';

/** `GET /api/reviews/:id/status`: the poll answer with a strong ETag (304 when unchanged). */
export function registerStatusRoute(app: Hono, deps: ServiceDeps): void {
  app.get('/api/reviews/:id/status', async (c) => {
    const fault = await deps.faults?.apply(c, 'status');
    if (fault?.response) return fault.response;
    const id = c.req.param('id');
    if (deps.profile.privateReads) {
      const known = await deps.store.get(id);
      if (!known) return c.json(errorBody('not_found', 'No such review case.'), 404);
      if (!mayRead(known, c.req.header('authorization'))) return c.json(READ_REFUSED, 401);
    }
    const ifNoneMatch = c.req.header('if-none-match');
    const unchanged = ifNoneMatch ? await notModified(deps, id, ifNoneMatch) : null;
    if (unchanged) return c.body(null, 304, unchanged);
    const stored = await deps.lifecycle.refresh(id);
    if (!stored) return c.json(errorBody('not_found', 'No such review case.'), 404);
    const { kase, version } = stored;
    const headers = pollHeaders(deps, etagFor(kase.case_id, version), !isFinal(kase));
    if (matchesIfNoneMatch(ifNoneMatch, headers.etag)) return c.body(null, 304, headers);
    const json = JSON.stringify(pollBody(kase));
    return c.body(json, 200, { ...headers, 'content-type': 'application/json' });
  });
}

/**
 * The 304 headers when the client's tag is the case's current version and nothing (expiry,
 * reminder) is due; otherwise null and the full path reads the case, applying what is due.
 */
async function notModified(deps: ServiceDeps, id: string, ifNoneMatch: string) {
  const state = await deps.store.stateOf(id);
  if (!state || (state.dueAt !== null && state.dueAt <= deps.now())) return null;
  const etag = etagFor(id, state.version);
  if (!matchesIfNoneMatch(ifNoneMatch, etag)) return null;
  // dueAt is null exactly when the case is final.
  return pollHeaders(deps, etag, state.dueAt !== null);
}

const isFinal = (kase: ReviewCase) => TERMINAL_STATUSES.has(kase.status);

/**
 * ETag, no-store and, while the case is open, Retry-After. no-store (v0.9 §13.7: responses with
 * private results or reviewer data MUST use it): no cache keeps a poll body; the agent's own
 * If-None-Match still gets its 304.
 */
function pollHeaders(deps: ServiceDeps, etag: string, open: boolean) {
  const headers: { etag: string } & Record<string, string> = { etag, 'cache-control': 'no-store' };
  // Terminal answers never change (bar a chain link), so only open cases suggest a next poll.
  if (open) headers['retry-after'] = String(deps.pollRetryAfterSeconds);
  return headers;
}
