/** The agent-facing API: create a case (202) and poll it (spec sections 6 and 8). */
import { type Context, Hono } from 'hono';
import type { DemoDeps } from './context.ts';
import { errorBody } from './context.ts';
import { createCase, DEFAULT_EXPIRES_IN_SECONDS } from './create.ts';
import { etagFor, matchesIfNoneMatch, pollBody } from './poll.ts';
import { actionsFor } from './review-types.ts';
import { TERMINAL_STATUSES } from './types.ts';
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
    const stored = await deps.engine.refresh(c.req.param('id'));
    if (!stored) return c.json(errorBody('not_found', 'No such review case.'), 404);
    const json = JSON.stringify(pollBody(stored.kase));
    const etag = etagFor(json);
    const headers: Record<string, string> = { etag, 'cache-control': 'no-cache' };
    // Terminal answers never change (bar a chain link), so only open cases suggest a next poll.
    if (!TERMINAL_STATUSES.has(stored.kase.status)) {
      headers['retry-after'] = String(deps.pollRetryAfterSeconds);
    }
    if (matchesIfNoneMatch(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
    return c.body(json, 200, { ...headers, 'content-type': 'application/json' });
  });
}
