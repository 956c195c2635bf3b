/** The SSE event stream of spec 8.5: replay after Last-Event-ID, live events, close after terminal. */
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { DemoDeps } from './context.ts';
import { errorBody } from './context.ts';
import { faultResponse } from './faults.ts';
import type { EventHub } from './hub.ts';
import type { ReviewEvent } from './types.ts';
import { TERMINAL_STATUSES } from './types.ts';

/** How often an idle stream gets a comment line, so proxies keep it open. */
export const SSE_KEEP_ALIVE_MS = 15_000;

const TERMINAL_EVENTS = new Set(['review.completed', 'review.expired', 'review.cancelled']);

/** Registers `GET /api/reviews/:id/events`. */
export function registerEventRoutes(app: Hono, deps: DemoDeps, hub: EventHub): void {
  app.get('/api/reviews/:id/events', async (c) => {
    const fault = deps.faults.take('events');
    if (fault?.kind === 'truncated' || fault?.kind === 'malformed_json') {
      // For a stream, "broken" means half an event and then the end of the stream.
      return c.body('event: review.completed\ndata: {"case_id":"review_', 200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
      });
    }
    const broken = fault ? await faultResponse(c, fault) : null;
    if (broken) return broken;
    const caseId = c.req.param('id');
    // Reading the case applies a due expiry first, so a late subscriber still gets review.expired.
    const stored = deps.engine.refresh(caseId);
    if (!stored) return c.json(errorBody('not_found', 'No such review case.'), 404);
    const lastId = Number.parseInt(c.req.header('last-event-id') ?? '0', 10);
    // An id this case never issued (another service, a reset database) means "replay everything".
    const valid = Number.isFinite(lastId) && lastId > 0 && lastId <= deps.store.lastSeq(caseId);
    const after = valid ? lastId : 0;

    return streamSSE(c, async (stream) => {
      const queue: ReviewEvent[] = [];
      let closed = false;
      let wake: (() => void) | undefined;
      const unsubscribe = hub.subscribe(
        caseId,
        (event) => {
          queue.push(event);
          wake?.();
        },
        () => {
          closed = true;
          wake?.();
        },
      );
      // Subscribing and reading the backlog happen in the same tick, so nothing falls in between.
      queue.push(...deps.store.eventsAfter(caseId, after));
      stream.onAbort(() => {
        closed = true;
        wake?.();
      });
      const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), SSE_KEEP_ALIVE_MS);
      let sent = after;
      try {
        while (!closed) {
          const event = queue.shift();
          if (event) {
            if (event.seq <= sent) continue;
            await stream.writeSSE({
              id: String(event.seq),
              event: event.event,
              data: JSON.stringify(event.data),
            });
            sent = event.seq;
            if (TERMINAL_EVENTS.has(event.event)) break;
            continue;
          }
          // A client that already saw the terminal event gets an empty, closed stream.
          const now = deps.store.get(caseId);
          if (!now || TERMINAL_STATUSES.has(now.kase.status)) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        clearInterval(keepAlive);
        unsubscribe();
      }
    });
  });
}
