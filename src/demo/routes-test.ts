/** Test controls under `/api/_test/` (only with `testControls: true`): submissions, act, faults, inspect. */
import type { Hono } from 'hono';
import { actOnCase, ReviewerStepError } from '../hitl-service/act.ts';
import type { ServiceDeps } from '../hitl-service/context.ts';
import { errorBody } from '../hitl-service/context.ts';
import { issueList } from '../hitl-service/validation.ts';
import type { FaultQueue } from './faults.ts';
import { ActBody, FaultBody } from './validation.ts';

/** Registers the test-control routes. */
export function registerTestRoutes(app: Hono, deps: ServiceDeps, faults: FaultQueue): void {
  app.get('/api/_test/submissions', async (c) => c.json(await deps.store.submissions()));

  app.get('/api/_test/reviews/:id', async (c) => {
    const stored = await deps.store.get(c.req.param('id'));
    if (!stored) return c.json(errorBody('not_found', 'No such review case.'), 404);
    return c.json(stored.kase);
  });

  app.post('/api/_test/reviews/:id/act', async (c) => {
    const parsed = ActBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      const details = issueList(parsed.error);
      return c.json(errorBody('invalid_request', 'Bad step.', { details }), 400);
    }
    const { step, action, data, progress, reason, responded_by } = parsed.data;
    try {
      const result = await actOnCase(
        deps,
        c.req.param('id'),
        {
          step,
          ...(action !== undefined && { action }),
          ...(data !== undefined && { data }),
          ...(progress !== undefined && { progress }),
          ...(reason !== undefined && { reason }),
          ...(responded_by !== undefined && { responded_by }),
        },
        deps.base(c),
      );
      return c.json(result);
    } catch (error) {
      if (!(error instanceof ReviewerStepError)) throw error;
      return c.json(errorBody(error.code, error.message), error.status as 400);
    }
  });

  app.post('/api/_test/faults', async (c) => {
    const parsed = FaultBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      const details = issueList(parsed.error);
      return c.json(errorBody('invalid_request', 'Bad fault.', { details }), 400);
    }
    const { delay_ms, ...fault } = parsed.data;
    faults.inject({ ...fault, ...(delay_ms !== undefined && { delay_ms }) });
    return c.json({ queued: parsed.data }, 201);
  });
}
