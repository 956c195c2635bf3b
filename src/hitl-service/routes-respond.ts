/** The answering endpoints: respond (inline Bearer or review page token), cancel, progress. */
import type { Context, Hono } from 'hono';
import { closedAnswer, type HttpAnswer, submitFromBrowser, submitInline } from './answers.ts';
import { bindingRefusal } from './binding.ts';
import type { ServiceDeps } from './context.ts';
import { errorBody } from './context.ts';
import { type FormParams, formParams, maskSensitive } from './form.ts';
import { renderDonePage, renderErrorPage } from './page.ts';
import { tokenMatches } from './tokens.ts';
import type { FaultKind } from './types.ts';
import { BrowserAnswer, issueList, ProgressBody } from './validation.ts';

/** The token of an `Authorization: Bearer` header; undefined when there is no such header. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S*)\s*$/i.exec(header ?? '');
  return match ? (match[1] ?? '') : undefined;
}

interface ReadBody {
  form: boolean;
  /** Parsed JSON or form; null when empty; undefined when the JSON did not parse. */
  value: unknown;
}

async function readBody(c: Context): Promise<ReadBody> {
  const form = (c.req.header('content-type') ?? '').includes('application/x-www-form-urlencoded');
  const text = await c.req.text();
  if (form) return { form, value: formParams(text) };
  if (text.trim() === '') return { form, value: null };
  try {
    return { form, value: JSON.parse(text) as unknown };
  } catch {
    return { form, value: undefined };
  }
}

function send(c: Context, answer: HttpAnswer, form: boolean, title: string): Response {
  const status = answer.status as 200;
  if (!form) {
    const body = answer.next ? { ...answer.body, next: answer.next } : answer.body;
    return c.json(body, status, answer.headers);
  }
  const html =
    answer.status < 300
      ? renderDonePage(title, answer.body, answer.next)
      : renderErrorPage(answer.status, String(answer.body.message ?? answer.body.error));
  return c.html(html, status, { 'referrer-policy': 'no-referrer', ...answer.headers });
}

/** Registers respond, cancel and progress under `/api/reviews/:id/`. */
export function registerRespondRoutes(app: Hono, deps: ServiceDeps): void {
  registerRespond(app, deps);
  registerCancel(app, deps);
  registerProgress(app, deps);
}

/** `POST respond`: every request is recorded (test controls show them), with its outcome. */
function registerRespond(app: Hono, deps: ServiceDeps): void {
  app.post('/api/reviews/:id/respond', async (c) => {
    const caseId = c.req.param('id');
    const bearer = bearerToken(c.req.header('authorization'));
    const reviewToken = c.req.query('token');
    const auth = bearer !== undefined ? 'bearer' : reviewToken ? 'review_token' : 'none';
    const body = await readBody(c);
    const known = await deps.store.get(caseId);
    const bearerValid = bearer !== undefined && !!known && tokenMatches(bearer, known.submitHash);
    const record = (status: number, extra: { error?: string; fault?: FaultKind } = {}) =>
      deps.store.addSubmission({
        case_id: caseId,
        method: c.req.method,
        auth,
        bearer_valid: bearerValid,
        body: known ? maskSensitive(known.kase, body.value ?? null) : (body.value ?? null),
        status,
        ...(extra.error !== undefined && { error: extra.error }),
        ...(extra.fault !== undefined && { fault: extra.fault }),
        at: new Date(deps.now()).toISOString(),
      });

    const fault = await deps.faults?.apply(c, 'respond');
    if (fault?.response) {
      await record(fault.kind === 'reset' ? 0 : fault.response.status, {
        fault: fault.kind,
      });
      return fault.response;
    }
    const answer = await answerRespond(c, deps, { caseId, bearer, reviewToken, body });
    await record(answer.status, {
      ...(typeof answer.body.error === 'string' && { error: answer.body.error }),
      ...(fault && { fault: fault.kind }),
    });
    return send(c, answer, body.form, 'Thank you, your answer was recorded.');
  });
}

/** `POST cancel`: the reviewer gives up (review token only). */
function registerCancel(app: Hono, deps: ServiceDeps): void {
  app.post('/api/reviews/:id/cancel', async (c) => {
    const body = await readBody(c);
    const stored = await deps.lifecycle.refresh(c.req.param('id'));
    if (!stored) return send(c, notFound(), body.form, '');
    // Only the review token: cancelling is the reviewer's act, never the agent's submit token.
    if (!tokenMatches(c.req.query('token'), stored.reviewHash)) {
      return send(c, invalidToken(), body.form, '');
    }
    // Cancelling ends the case: under an approval policy that is not the page's to do either.
    const bound = closedAnswer(stored.kase) ? undefined : bindingRefusal(stored.kase);
    if (bound) return send(c, bound, body.form, '');
    const given = (body.value as { reason?: unknown } | null | undefined)?.reason;
    const reason =
      typeof given === 'string' && given.trim() !== ''
        ? given.trim().slice(0, 500)
        : 'The reviewer cancelled the review';
    const outcome = await deps.lifecycle.cancel(stored.kase.case_id, reason);
    const answer: HttpAnswer = outcome.ok
      ? {
          status: 200,
          body: {
            status: 'cancelled',
            case_id: outcome.kase.case_id,
            cancelled_at: outcome.kase.cancelled_at,
          },
        }
      : (closedAnswer(outcome.kase ?? stored.kase) ?? notFound());
    return send(c, answer, body.form, 'The review was cancelled.');
  });
}

/** `POST progress`: form-filling progress from the review page (review token only). */
function registerProgress(app: Hono, deps: ServiceDeps): void {
  app.post('/api/reviews/:id/progress', async (c) => {
    const body = await readBody(c);
    const stored = await deps.lifecycle.refresh(c.req.param('id'));
    if (!stored) return c.json(notFound().body, 404);
    if (!tokenMatches(c.req.query('token'), stored.reviewHash))
      return c.json(invalidToken().body, 401);
    const parsed = ProgressBody.safeParse(body.value ?? {});
    if (!parsed.success) {
      const details = issueList(parsed.error);
      return c.json(errorBody('invalid_request', 'Bad progress report.', { details }), 400);
    }
    const outcome = await deps.lifecycle.progress(stored.kase.case_id, parsed.data);
    if (!outcome.ok) {
      const closed = closedAnswer(outcome.kase ?? stored.kase) ?? notFound();
      return c.json(closed.body, closed.status as 409);
    }
    return c.json({ status: outcome.kase.status, case_id: outcome.kase.case_id });
  });
}

async function answerRespond(
  c: Context,
  deps: ServiceDeps,
  req: { caseId: string; bearer?: string; reviewToken?: string; body: ReadBody },
): Promise<HttpAnswer> {
  const stored = await deps.lifecycle.refresh(req.caseId);
  if (!stored) return notFound();
  const retryAfter = deps.limiter.check(req.caseId);
  if (retryAfter !== null) {
    return {
      status: 429,
      body: errorBody('rate_limited', 'Too many requests for this case; slow down.'),
      headers: { 'retry-after': String(retryAfter) },
    };
  }
  const base = deps.base(c);
  if (req.bearer !== undefined) return submitInline(deps, stored, req.bearer, req.body.value, base);
  if (!tokenMatches(req.reviewToken, stored.reviewHash)) return invalidToken();
  if (req.body.form) {
    return submitFromBrowser(
      deps,
      stored.kase,
      deps.profile.formAnswer(stored.kase, req.body.value as FormParams),
      base,
    );
  }
  const parsed = BrowserAnswer.safeParse(req.body.value);
  if (!parsed.success) {
    const details = issueList(parsed.error);
    return { status: 400, body: errorBody('invalid_request', 'Bad answer.', { details }) };
  }
  const { action, data, responded_by } = parsed.data;
  return submitFromBrowser(
    deps,
    stored.kase,
    { action, data: data ?? {}, ...(responded_by && { responded_by }) },
    base,
  );
}

function notFound(): HttpAnswer {
  return { status: 404, body: errorBody('not_found', 'No such review case.') };
}

function invalidToken(): HttpAnswer {
  return { status: 401, body: errorBody('invalid_token', 'The token is not valid for this case.') };
}
