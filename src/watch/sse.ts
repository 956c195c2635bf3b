/**
 * The SSE client (spec 8.5): one stream per open case that offers `events_url`, held by one replica
 * at a time through a lease in the shared key-value store (renewed while the stream lives; when a
 * replica dies its leases lapse and the next replica that looks at the case takes over). Events
 * that are not terminal apply at once; a terminal event is confirmed by one poll before the card is
 * finalised (poll_url stays the source of truth), then the stream is closed. A dropped stream comes
 * back with `Last-Event-ID` after a backoff with jitter; after `maxFailures` failed attempts in a row
 * the case is left to polling alone. Streams are a fixed cost per case, so each process holds at
 * most `maxStreams`; the rest are polled as usual.
 */
import type { Agent } from 'undici';
import { ValidationError } from '../errors.ts';
import { createGuardedAgent } from '../net/http.ts';
import { parseReviewEvent, type StatusUpdate } from '../protocol/status.ts';
import { isTerminal } from '../protocol/types.ts';
import { onCaseOrigin } from '../service-client/case-origin.ts';
import { confirmByPoll, pollSoon } from '../service-client/confirm-by-poll.ts';
import { watchHeaders } from '../service-client/poll.ts';
import type { StoredCase } from '../store/types.ts';
import { EventBudgets } from './event-budget.ts';
import type { Reminders } from './reminders.ts';
import type { EventStreamOptions, EventStreamsDeps } from './sse-options.ts';
import { connectOnce, type StreamEvent } from './sse-stream.ts';

export type { EventStreamOptions, EventStreamsDeps } from './sse-options.ts';

/** Coalescing state of one live stream. */
interface Flow {
  /** The status last applied from this stream (or read at connect). */
  status: string;
  /** The newest progress-only update not yet applied. */
  pending?: StatusUpdate;
  lastApplied: number;
  timer?: NodeJS.Timeout;
}

interface Live {
  id: string;
  abort: AbortController;
  healthy: boolean;
  done: Promise<void>;
  flow?: Flow;
  /** Events handled on this stream (every few, the event loop gets a turn). */
  events: number;
}

const leaseKey = (id: string) => `sse:lease:${id}`;
const offKey = (id: string) => `sse:off:${id}`;

/** The event streams of this process. */
export class EventStreams {
  private readonly o: Required<EventStreamOptions>;
  private readonly live = new Map<string, Live>();
  /** Last event id per case, kept after a stream ends so a later stream resumes where it stopped. */
  private readonly lastIds = new Map<string, string>();
  private readonly starting = new Set<string>();
  private readonly dispatcher: Agent;
  private readonly budgets: EventBudgets;
  private readonly owner: string;
  private renewTimer: NodeJS.Timeout | undefined;
  private stopped = true;
  private readonly onChange = (c: StoredCase) => {
    if (!isTerminal(c.status)) return;
    this.lastIds.delete(c.id);
    this.live.get(c.id)?.abort.abort();
  };
  private readonly onIngested = (c: StoredCase) =>
    void this.consider(c).catch((err) =>
      this.deps.log.warn({ case: c.id, err: String(err) }, 'opening an event stream failed'),
    );

  constructor(
    private readonly deps: EventStreamsDeps,
    private readonly reminders: Reminders,
    options: EventStreamOptions = {},
  ) {
    this.o = {
      maxStreams: options.maxStreams ?? deps.config.sseMaxStreams,
      leaseMs: options.leaseMs ?? deps.config.leaseMs,
      maxFailures: options.maxFailures ?? 5,
      backoffBaseMs: options.backoffBaseMs ?? 1_000,
      backoffMaxMs: options.backoffMaxMs ?? 60_000,
      healthyAfterMs: options.healthyAfterMs ?? 30_000,
      idleTimeoutMs: options.idleTimeoutMs ?? 120_000,
      headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
      fallbackForMs: options.fallbackForMs ?? 15 * 60_000,
      maxEventChars: options.maxEventChars ?? 256 * 1024,
      progressEveryMs: options.progressEveryMs ?? 5_000,
      eventsPerMinute: options.eventsPerMinute ?? 120,
      originEventsPerMinute: options.originEventsPerMinute ?? 3_000,
    };
    this.budgets = new EventBudgets(this.o.eventsPerMinute, this.o.originEventsPerMinute);
    this.owner = deps.instanceId;
    // Streams hold their connection for as long as the case is open: they get their own pool (same
    // URL policy), so they can never use up the connections that polls and submits need.
    this.dispatcher = createGuardedAgent(deps.config, {
      connections: Math.max(1, this.o.maxStreams),
    });
  }

  /** Starts taking streams: new cases at once, others when the watcher looks at them. */
  start(): void {
    this.stopped = false;
    this.deps.cases.events.on('change', this.onChange);
    this.deps.cases.events.on('ingested', this.onIngested);
    this.renewTimer = setInterval(() => void this.renew(), Math.max(10, this.o.leaseMs / 3));
    this.renewTimer.unref();
  }

  /** Ends every stream and gives up its lease, so another replica can take over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.renewTimer);
    this.deps.cases.events.off('change', this.onChange);
    this.deps.cases.events.off('ingested', this.onIngested);
    const all = [...this.live.values()];
    for (const l of all) l.abort.abort();
    await Promise.allSettled(all.map((l) => l.done));
    await this.dispatcher.close();
  }

  /** Streams open in this process. */
  get count(): number {
    return this.live.size;
  }

  /** Opens the case's stream here when it has events_url, none runs anywhere, and there is room. */
  async consider(c: StoredCase): Promise<void> {
    if (this.stopped || !streamable(c)) return;
    if (this.live.has(c.id) || this.starting.has(c.id)) return;
    if (this.live.size + this.starting.size >= this.o.maxStreams) return;
    this.starting.add(c.id);
    try {
      const kv = this.deps.store.kv;
      if (await kv.get(offKey(c.id))) return;
      if (!(await kv.setIfAbsent(leaseKey(c.id), this.leaseValue(false), this.o.leaseMs))) return;
      if (this.stopped) return void (await this.release(c.id));
      const l: Live = {
        id: c.id,
        abort: new AbortController(),
        healthy: false,
        done: Promise.resolve(),
        events: 0,
      };
      this.live.set(c.id, l);
      l.done = this.run(l).catch((err) =>
        this.deps.log.error({ case: c.id, err: String(err) }, 'event stream failed'),
      );
    } finally {
      this.starting.delete(c.id);
    }
  }

  /** Whether the case's stream is up (here or on another replica), so its poll may wait up to pollMax. */
  async healthy(c: StoredCase): Promise<boolean> {
    const l = this.live.get(c.id);
    if (l) return l.healthy;
    if (!streamable(c)) return false;
    return (await this.deps.store.kv.get(leaseKey(c.id)))?.endsWith('|1') ?? false;
  }

  private leaseValue(healthy: boolean): string {
    return `${this.owner}|${healthy ? 1 : 0}`;
  }

  private async run(l: Live): Promise<void> {
    const e = this.deps;
    let failures = 0;
    try {
      while (!l.abort.signal.aborted) {
        const c = await e.store.getCase(l.id);
        const url = c?.doc.hitl.events_url;
        if (!c || !url || !streamable(c)) break;
        const started = e.now();
        const r = await connectOnce(url, {
          dispatcher: this.dispatcher,
          headers: watchHeaders(c, e.sealer.open(c.secrets), url),
          lastEventId: this.lastIds.get(l.id) ?? null,
          signal: l.abort.signal,
          headersTimeoutMs: this.o.headersTimeoutMs,
          idleTimeoutMs: this.o.idleTimeoutMs,
          maxEventChars: this.o.maxEventChars,
          now: e.now,
          onOpen: () => {
            e.log.debug({ case: l.id, resumed: this.lastIds.has(l.id) }, 'event stream open');
            return this.setHealthy(l, true);
          },
          onEvent: (ev) => this.handle(c, ev, l),
        });
        if (l.healthy) await this.setHealthy(l, false);
        if (r.stopped || l.abort.signal.aborted) {
          e.log.debug({ case: l.id, reason: r.reason }, 'event stream closed');
          break;
        }
        const good = r.opened && (r.events > 0 || e.now() - started >= this.o.healthyAfterMs);
        failures = good ? 0 : failures + 1;
        e.log.debug({ case: l.id, reason: r.reason, failures }, 'event stream ended');
        if (r.permanent || failures >= this.o.maxFailures) {
          await this.fallBack(l.id, r.reason, failures);
          break;
        }
        await sleep(this.backoff(failures, r.retryMs), l.abort.signal);
      }
    } finally {
      clearTimeout(l.flow?.timer);
      this.budgets.forget(l.id);
      this.live.delete(l.id);
      // A lease lost to another replica is theirs now; otherwise it is given up for whoever comes next.
      const lost = l.abort.signal.reason === 'lease_lost';
      if (!lost) await this.release(l.id).catch(() => {});
    }
  }

  /**
   * One event: within the budgets, a status change applies at once, a progress-only update is
   * coalesced (the newest applied at most once per progressEveryMs); any terminal event
   * (review.completed / expired / cancelled, whatever its data: none, invalid, without result) is
   * confirmed by a poll and ends the stream. Event names the spec does not have are ignored
   * quietly. Over budget, the stream ends and polling takes over.
   */
  private async handle(c: StoredCase, ev: StreamEvent, l: Live): Promise<'continue' | 'stop'> {
    const e = this.deps;
    // A burst of events arrives as one chunk and is handled in microtasks: let other work in.
    if (++l.events % 16 === 0) await new Promise<void>((r) => setImmediate(r));
    if (!this.budgets.take(c.id, c.origin, e.now())) {
      await this.fallBack(c.id, 'too many events', 0);
      return 'stop';
    }
    let parsed: ReturnType<typeof parseReviewEvent>;
    try {
      parsed = parseReviewEvent(ev.event, ev.data);
    } catch (err) {
      // Only the event name and the paths that failed: event data may hold form values.
      const paths = err instanceof ValidationError ? err.details.map((d) => d.path) : [];
      e.log.warn({ case: c.id, event: ev.event.slice(0, 40), paths }, 'ignored an invalid event');
      this.remember(c.id, ev.id);
      return 'continue';
    }
    if (parsed.kind === 'unknown') {
      e.log.debug({ case: c.id, event: parsed.name }, 'ignored an event the spec does not name');
      this.remember(c.id, ev.id);
      return 'continue';
    }
    const caseId = parsed.kind === 'status' ? parsed.update.case_id : parsed.case_id;
    if (caseId !== undefined && caseId !== c.case_id) {
      e.log.warn({ case: c.id, event: ev.event }, 'ignored an event for another case');
      this.remember(c.id, ev.id);
      return 'continue';
    }
    if (parsed.kind === 'reminder') {
      await this.reminders.fromEvent(c.id, parsed, ev.id);
    } else if (parsed.kind === 'terminal' || isTerminal(parsed.update.status)) {
      await e.cases.history(c.id, 'sse_event', { event: ev.event });
      await confirmByPoll(e, c.id);
      this.remember(c.id, ev.id);
      return 'stop';
    } else {
      await this.coalesce(l, c, parsed.update);
    }
    this.remember(c.id, ev.id);
    return 'continue';
  }

  /** Applies a status change now; holds a progress-only update until its interval is up. */
  private async coalesce(l: Live, c: StoredCase, u: StatusUpdate): Promise<void> {
    const e = this.deps;
    if (!l.flow) l.flow = { status: c.status, lastApplied: Number.NEGATIVE_INFINITY };
    const flow = l.flow;
    const apply = async (x: StatusUpdate) => {
      flow.lastApplied = e.now();
      const after = await e.status.apply(c.id, x, 'sse');
      if (after) flow.status = after.status;
    };
    if (u.status !== flow.status || u.next_case_id) {
      // A new status supersedes any progress held back for the old one.
      clearTimeout(flow.timer);
      flow.timer = undefined;
      delete flow.pending;
      flow.status = u.status;
      return apply(u);
    }
    const wait = flow.lastApplied + this.o.progressEveryMs - e.now();
    if (wait <= 0 && !flow.timer) return apply(u);
    flow.pending = u;
    flow.timer ??= setTimeout(
      () => {
        flow.timer = undefined;
        const next = flow.pending;
        delete flow.pending;
        if (next && !l.abort.signal.aborted)
          void apply(next).catch((err) =>
            e.log.warn({ case: c.id, err: String(err) }, 'applying a held progress update failed'),
          );
      },
      Math.max(0, wait),
    );
    flow.timer.unref();
  }

  private remember(id: string, eventId: string | undefined): void {
    if (eventId !== undefined && eventId !== '') this.lastIds.set(id, eventId);
  }

  private async setHealthy(l: Live, healthy: boolean): Promise<void> {
    l.healthy = healthy;
    await this.deps.store.kv.set(leaseKey(l.id), this.leaseValue(healthy), this.o.leaseMs);
  }

  /** Too many failures (or a service that said no): polling alone from now on, looked at soon. */
  private async fallBack(id: string, reason: string, failures: number): Promise<void> {
    const e = this.deps;
    this.lastIds.delete(id);
    await e.store.kv.set(offKey(id), '1', this.o.fallbackForMs);
    await e.cases.history(id, 'sse_fallback', { reason, failures });
    e.log.warn({ case: id, reason, failures }, 'event stream failing; polling only');
    const c = await e.store.getCase(id);
    if (c && !isTerminal(c.status)) await pollSoon(e, c);
  }

  private async release(id: string): Promise<void> {
    const kv = this.deps.store.kv;
    const v = await kv.get(leaseKey(id));
    // Only our own lease: another replica may hold it by now.
    if (v?.startsWith(`${this.owner}|`)) await kv.compareAndDelete(leaseKey(id), v);
  }

  /** Renews every lease held here; a stream whose lease another replica now holds is ended. */
  private async renew(): Promise<void> {
    const kv = this.deps.store.kv;
    for (const l of [...this.live.values()]) {
      try {
        const v = await kv.get(leaseKey(l.id));
        if (v && !v.startsWith(`${this.owner}|`)) {
          l.abort.abort('lease_lost');
          continue;
        }
        // Renewed only while still ours: a lease that lapsed and was taken meanwhile is lost.
        if (
          !v ||
          !(await kv.compareAndSet(leaseKey(l.id), v, this.leaseValue(l.healthy), this.o.leaseMs))
        )
          l.abort.abort('lease_lost');
      } catch (err) {
        this.deps.log.warn({ case: l.id, err: String(err) }, 'renewing a stream lease failed');
      }
    }
  }

  private backoff(failures: number, retryMs: number | undefined): number {
    const { backoffBaseMs: base, backoffMaxMs: max } = this.o;
    const exp = Math.min(max, base * 2 ** Math.max(0, failures - 1));
    // Full jitter on half the delay, so streams dropped together do not come back together.
    const wait = exp * (0.5 + Math.random() * 0.5);
    return Math.min(max, Math.max(wait, retryMs ?? 0));
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Whether the case has a stream to open: an events_url on the case's own origin (§13.3; intake
 * refuses one elsewhere, a row stored before that rule is polled instead), while the case is open.
 */
function streamable(c: StoredCase): boolean {
  const url = c.doc.hitl.events_url;
  return !!url && onCaseOrigin(c, url) && !isTerminal(c.status);
}
