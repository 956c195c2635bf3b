/** The SSE event stream of spec 8.5: replay after Last-Event-ID, live events, close after terminal. */
import type { Hono } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { mayRead, READ_REFUSED } from './binding.ts';
import type { ServiceDeps } from './context.ts';
import { errorBody } from './context.ts';
import type { EventHub } from './hub.ts';
import { TERMINAL_STATUSES } from './types.ts';

/** How often an idle stream gets a comment line, so proxies keep it open. */
export const SSE_KEEP_ALIVE_MS = 15_000;

const TERMINAL_EVENTS = new Set(['review.completed', 'review.expired', 'review.cancelled']);

/** Registers `GET /api/reviews/:id/events`. */
export function registerEventRoutes(app: Hono, deps: ServiceDeps, hub: EventHub): void {
  app.get('/api/reviews/:id/events', async (c) => {
    const fault = await deps.faults?.apply(c, 'events');
    if (fault?.response) return fault.response;
    const caseId = c.req.param('id');
    // Reading the case applies a due expiry first, so a late subscriber still gets review.expired.
    const stored = await deps.lifecycle.refresh(caseId);
    if (!stored) return c.json(errorBody('not_found', 'No such review case.'), 404);
    if (deps.profile.privateReads && !mayRead(stored, c.req.header('authorization')))
      return c.json(READ_REFUSED, 401);
    const lastId = Number.parseInt(c.req.header('last-event-id') ?? '0', 10);
    // An id this case never issued (another service, a reset database) means "replay everything".
    const valid =
      Number.isFinite(lastId) && lastId > 0 && lastId <= (await deps.store.lastSeq(caseId));
    const after = valid ? lastId : 0;
    const res = streamSSE(c, (stream) => streamCase(stream, deps, hub, caseId, after));
    // Events carry results (review.completed): no-store, not Hono's no-cache (v0.9 §13.7).
    res.headers.set('cache-control', 'no-store');
    return res;
  });
}

/**
 * Writes the case's events after `after` from the store, then waits for a wake (a commit here,
 * another replica's commit heard through the store, or the keep-alive tick) and reads again; so
 * events reach the client in order whichever replica wrote them.
 */
async function streamCase(
  stream: SSEStreamingApi,
  deps: ServiceDeps,
  hub: EventHub,
  caseId: string,
  after: number,
): Promise<void> {
  let closed = false;
  let dirty = true;
  let wake: (() => void) | undefined;
  const poke = () => {
    dirty = true;
    wake?.();
  };
  const end = () => {
    closed = true;
    wake?.();
  };
  // Subscribed before the first read, so a commit between the two is never missed.
  const unsubscribe = hub.subscribe(caseId, poke, end);
  stream.onAbort(end);
  const keepAlive = keepAliveTimer(stream, poke);
  let sent = after;
  try {
    while (!closed) {
      if (!dirty) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      dirty = false;
      const next = await writeNew(stream, deps, caseId, sent);
      if (next === 'terminal') break;
      if (next === sent) {
        // A client that already saw the terminal event gets an empty, closed stream; one that
        // read just before the case ended gets its terminal event first (case and events commit
        // together).
        const now = await deps.store.get(caseId);
        if (!now || TERMINAL_STATUSES.has(now.kase.status)) {
          await writeNew(stream, deps, caseId, sent);
          break;
        }
      }
      sent = next;
    }
  } catch (error) {
    // The store failed (or closed under a shutdown): the stream ends and the client resumes with
    // Last-Event-ID, at this replica or another.
    if (!closed)
      deps.log.warn({ case_id: caseId, err: (error as Error).message }, 'event stream ended early');
  } finally {
    clearInterval(keepAlive);
    unsubscribe();
  }
}

/** The comment line that keeps proxies from closing an idle stream; each tick also re-reads. */
function keepAliveTimer(stream: SSEStreamingApi, poke: () => void): NodeJS.Timeout {
  return setInterval(() => {
    void stream.write(': keep-alive\n\n');
    // A change whose notice was lost (a dropped feed connection) is still found within a tick.
    poke();
  }, SSE_KEEP_ALIVE_MS);
}

/** Writes the events after `sent`; the last sequence number written, or 'terminal' after the end. */
async function writeNew(
  stream: SSEStreamingApi,
  deps: ServiceDeps,
  caseId: string,
  sent: number,
): Promise<number | 'terminal'> {
  let last = sent;
  for (const event of await deps.store.eventsAfter(caseId, sent)) {
    await stream.writeSSE({
      id: String(event.seq),
      event: event.event,
      data: JSON.stringify(event.data),
    });
    last = event.seq;
    if (TERMINAL_EVENTS.has(event.event)) return 'terminal';
  }
  return last;
}
