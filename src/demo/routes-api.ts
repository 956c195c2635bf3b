/** The agent-facing API: create a case (202) and poll it (spec sections 6 and 8). */
import { type Context, Hono } from 'hono';
import type { DemoDeps } from './context.ts';
import { errorBody } from './context.ts';
import { createCase, DEFAULT_EXPIRES_IN_SECONDS } from './create.ts';
import { etagFor, matchesIfNoneMatch, pollBody } from './poll.ts';
import { actionsFor } from './review-types.ts';
import { type DemoCase, TERMINAL_STATUSES } from './types.ts';
import { CreateBody, CreateQuery, issueList } from './validation.ts';

/** Registers `POST /api/reviews` and `GET /api/reviews/:id/status`. */
export function registerApiRoutes(app: Hono, deps: DemoDeps): void {
  // Under a profile cases are created in-process by their owner (the relay's /v1/asks, API-key
  // protected), never by an anonymous POST: the route goes to a throwaway app.
  (deps.profile ? new Hono() : app).post('/api/reviews', (c) => createReview(c, deps));
  registerStatusRoute(app, deps);
}

/** `POST /api/reviews?type=&inline=`: validates the query and body, stores the case, 202. */
async function createReview(c: Context, deps: DemoDeps): Promise<Response> {
  const fault = await deps.faults.apply(c, 'create');
  if (fault?.response) return fault.response;
  const query = CreateQuery.safeParse({
    type: c.req.query('type'),
    inline: c.req.query('inline'),
  });
  if (!query.success) {
    const details = issueList(query.error);
    return c.json(errorBody('invalid_request', 'Bad query parameters.', { details }), 400);
  }
  const text = await c.req.text();
  let raw: unknown = {};
  if (text.trim() !== '') {
    try {
      raw = JSON.parse(text);
    } catch {
      return c.json(errorBody('invalid_request', 'The body is not valid JSON.'), 400);
    }
  }
  const parsed = CreateBody.safeParse(raw);
  if (!parsed.success) {
    const details = issueList(parsed.error);
    return c.json(errorBody('invalid_request', 'The body is not valid.', { details }), 400);
  }
  const { type, inline } = query.data;
  const body = parsed.data;
  const unknown = (body.inline_actions ?? []).filter((a) => !actionsFor(type).includes(a));
  if (unknown.length > 0) {
    const message = `Not actions of a ${type} review: ${unknown.join(', ')}`;
    return c.json(errorBody('invalid_request', message), 400);
  }
  const created = await createCase(
    deps.engine,
    {
      type,
      inline,
      expiresInSeconds: body.expires_in_seconds ?? DEFAULT_EXPIRES_IN_SECONDS,
      callback_url: body.hitl_callback_url ?? null,
      ...(body.prompt !== undefined && { prompt: body.prompt }),
      ...(body.reminder_at !== undefined && { reminder_at: body.reminder_at }),
      ...(body.previous_case_id !== undefined && { previous_case_id: body.previous_case_id }),
      ...(body.context !== undefined && { context: body.context }),
      ...(body.inline_actions !== undefined && { inline_actions: body.inline_actions }),
      ...(body.verification !== undefined && { verification: body.verification }),
    },
    deps.base(c),
    deps.now(),
  );
  deps.log.info({ case_id: created.hitl.case_id, type, inline }, 'demo case created');
  return c.json(created, 202, { 'retry-after': String(deps.pollRetryAfterSeconds) });
}

/** `GET /api/reviews/:id/status`: the poll answer with a strong ETag (304 when unchanged). */
function registerStatusRoute(app: Hono, deps: DemoDeps): void {
  app.get('/api/reviews/:id/status', async (c) => {
    const fault = await deps.faults.apply(c, 'status');
    if (fault?.response) return fault.response;
    const id = c.req.param('id');
    const ifNoneMatch = c.req.header('if-none-match');
    const unchanged = ifNoneMatch ? await notModified(deps, id, ifNoneMatch) : null;
    if (unchanged) return c.body(null, 304, unchanged);
    const stored = await deps.engine.refresh(id);
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
async function notModified(deps: DemoDeps, id: string, ifNoneMatch: string) {
  const state = await deps.store.stateOf(id);
  if (!state || (state.dueAt !== null && state.dueAt <= deps.now())) return null;
  const etag = etagFor(id, state.version);
  if (!matchesIfNoneMatch(ifNoneMatch, etag)) return null;
  // dueAt is null exactly when the case is final.
  return pollHeaders(deps, etag, state.dueAt !== null);
}

const isFinal = (kase: DemoCase) => TERMINAL_STATUSES.has(kase.status);

/** ETag, no-cache and, while the case is open, Retry-After. */
function pollHeaders(deps: DemoDeps, etag: string, open: boolean) {
  const headers: { etag: string } & Record<string, string> = { etag, 'cache-control': 'no-cache' };
  // Terminal answers never change (bar a chain link), so only open cases suggest a next poll.
  if (open) headers['retry-after'] = String(deps.pollRetryAfterSeconds);
  return headers;
}
