/**
 * `POST /api/reviews?type=T&inline=1|0`: anyone may create a demo case (202, spec section 6), with
 * the type's sample prompt, message and context unless the body gives its own. The asks service
 * has no such route: its cases are created in-process by their owner (the relay's /v1/asks).
 */
import type { Context, Hono } from 'hono';
import type { ServiceDeps } from '../hitl-service/context.ts';
import { errorBody } from '../hitl-service/context.ts';
import { createCase, DEFAULT_EXPIRES_IN_SECONDS } from '../hitl-service/create.ts';
import { actionsFor, STANDARD_TYPES } from '../hitl-service/review-types.ts';
import { issueList } from '../hitl-service/validation.ts';
import { defaultContext, defaultMessage, defaultPrompt } from './samples.ts';
import { CreateBody, CreateQuery } from './validation.ts';

/** Registers `POST /api/reviews`, and `GET /`, which says how to use it (the start-up log links there). */
export function registerCreateRoute(app: Hono, deps: ServiceDeps): void {
  app.post('/api/reviews', (c) => createReview(c, deps));
  app.get('/', (c) =>
    c.json({
      service: 'the demo HITL service (a stand-in for a real one; DEMO=0 turns it off)',
      create: `POST ${new URL(c.req.url).pathname.replace(/\/$/, '')}/api/reviews?type=<type>&inline=1`,
      types: STANDARD_TYPES,
      try_it: 'in the web chat: /chat?room=lobby, "New demo case"',
    }),
  );
}

/** `POST /api/reviews?type=&inline=`: validates the query and body, stores the case, 202. */
async function createReview(c: Context, deps: ServiceDeps): Promise<Response> {
  const fault = await deps.faults?.apply(c, 'create');
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
    deps.lifecycle,
    {
      type,
      inline,
      prompt: body.prompt ?? defaultPrompt(type),
      message: defaultMessage(type),
      expiresInSeconds: body.expires_in_seconds ?? DEFAULT_EXPIRES_IN_SECONDS,
      callback_url: body.hitl_callback_url ?? null,
      // The type's sample context, with what the agent sent laid over it.
      context: { ...defaultContext(type), ...body.context },
      ...(body.reminder_at !== undefined && { reminder_at: body.reminder_at }),
      ...(body.previous_case_id !== undefined && { previous_case_id: body.previous_case_id }),
      ...(body.inline_actions !== undefined && { inline_actions: body.inline_actions }),
      ...(body.verification !== undefined && { verification: body.verification }),
    },
    deps.base(c),
    deps.now(),
  );
  deps.log.info({ case_id: created.hitl.case_id, type, inline }, 'demo case created');
  return c.json(created, 202, { 'retry-after': String(deps.pollRetryAfterSeconds) });
}
