/**
 * The case repository: reads and compare-and-set writes of cases, their history rows, and the
 * change events every write announces (/wait, notify, card edits, the log and metrics listen).
 */
import { EventEmitter } from 'node:events';
import { endedByPolicy } from '../policy/escalation.ts';
import { isTerminal } from '../protocol/types.ts';
import type { NotifyDelivery, StepWrites, Store } from '../store/store.ts';
import type { CaseDoc, HistoryEntry, StoredCase } from '../store/types.ts';

/**
 * Writes a step carries to the next case change (a tap's submit row and its claim release):
 * `done` is set once a change committed them, else the caller writes them on their own.
 */
export interface CarriedWrites extends StepWrites {
  done?: boolean;
}

/** How a change is made: from the copy in hand, and with which writes in the same commit. */
export interface MutateOptions {
  /**
   * The case as the caller holds it (just read or just written): the change starts from it
   * instead of a read; a copy that is no longer current only costs one retry from a fresh read.
   */
  known?: StoredCase | undefined;
  /** Writes that go in the same commit as the change. */
  carry?: CarriedWrites | undefined;
}

/** Emitted when changes of other replicas may have been missed (the change feed reconnected). */
export const CHANGES_MISSED = 'changes-missed';

/** Emitted after a change queued notify_url deliveries in its write (the outbox worker wakes). */
export const NOTIFY_QUEUED_EVENT = 'notify:queued';

/** What the repository is built on. */
export interface CaseRepositoryDeps {
  store: Store;
  now: () => number;
  /**
   * The notify_url deliveries a change asks for (notify/deliveries.ts; the wiring supplies it), so
   * they are written in the same commit as the change and a crash cannot keep one without the other.
   */
  deliveriesFor: (next: StoredCase, prev: StoredCase) => Promise<NotifyDelivery[]>;
}

/** Cases, their history and their change events. */
export class CaseRepository {
  /**
   * Emits `change:<id>` and `change` after every stored change of a case, `history` for every
   * history row, and the lifecycle events of the services (ingested, status, posted, poll, ...).
   */
  readonly events = new EventEmitter();
  /** History rows a change asks to write with it (a status row), by the changed copy. */
  private readonly stashed = new WeakMap<StoredCase, HistoryEntry[]>();
  private readonly store: Store;
  private readonly now: () => number;
  private readonly deliveriesFor: CaseRepositoryDeps['deliveriesFor'];

  constructor(d: CaseRepositoryDeps) {
    this.store = d.store;
    this.now = d.now;
    this.deliveriesFor = d.deliveriesFor;
    this.events.setMaxListeners(0);
  }

  /**
   * Read-modify-write of a case with compare-and-set; `change` returns false for "nothing to do".
   * Returns the stored case after the change, or undefined when nothing changed.
   */
  async mutate(
    id: string,
    change: (c: StoredCase) => boolean,
    options: MutateOptions = {},
  ): Promise<StoredCase | undefined> {
    let known = options.known;
    const carry = options.carry?.done ? undefined : options.carry;
    for (let i = 0; i < 20; i++) {
      const pair = await this.copies(id, known);
      known = undefined;
      if (!pair) return undefined;
      const [current, next] = pair;
      if (!next || next.version !== current.version) continue;
      if (!change(next)) return undefined;
      if (await this.write(id, current, next, carry)) return next;
    }
    throw new Error(`case ${id} kept changing under us`);
  }

  /**
   * Two copies of the case, rather than a recursive clone: a stored value of any depth cannot
   * overflow the stack. The copy in hand is serialised as the store does; else both are read.
   */
  private async copies(
    id: string,
    known: StoredCase | undefined,
  ): Promise<[StoredCase, StoredCase | undefined] | undefined> {
    if (known) {
      const text = JSON.stringify(known);
      return [JSON.parse(text) as StoredCase, JSON.parse(text) as StoredCase];
    }
    const current = await this.store.getCase(id);
    if (!current) return undefined;
    return [current, await this.store.getCase(id)];
  }

  /** Writes one change (compare-and-set on the version) and announces it; false when it lost. */
  private async write(
    id: string,
    current: StoredCase,
    next: StoredCase,
    carry: CarriedWrites | undefined,
  ): Promise<boolean> {
    next.version = current.version + 1;
    next.updated_at = this.now();
    // A notify_url delivery is queued in the same write as the status it reports (at-least-once).
    const outbox = await this.deliveriesFor(next, current);
    const step = this.stepOf(carry, next);
    if (
      !(await this.store.updateCase(
        next,
        current.version,
        outbox.length ? outbox : undefined,
        step,
      ))
    )
      return false;
    if (carry) carry.done = true;
    if (outbox.length) this.events.emit(NOTIFY_QUEUED_EVENT);
    for (const h of step?.history ?? []) this.recorded(id, h);
    this.events.emit(`change:${id}`, next);
    // Card delivery listens here and edits the cards (services.ts wires it).
    this.events.emit('change', next, current);
    return true;
  }

  /** The step writes of one change: what is carried, and the rows the change stashed. */
  private stepOf(carry: CarriedWrites | undefined, next: StoredCase): StepWrites | undefined {
    const extra = this.stashed.get(next);
    this.stashed.delete(next);
    if (!carry && !extra) return undefined;
    return {
      history: [...(carry?.history ?? []), ...(extra ?? [])],
      ...(carry?.releaseClaim ? { releaseClaim: carry.releaseClaim } : {}),
    };
  }

  /** Called inside a `mutate` change: `rows` are written in the same commit as the change of `c`. */
  stash(c: StoredCase, rows: HistoryEntry[]): void {
    this.stashed.set(c, rows);
  }

  /** Announces a history row written as part of a step (the log and metrics listen). */
  recorded(caseId: string, entry: HistoryEntry): void {
    this.events.emit('history', caseId, entry.kind, entry.detail);
  }

  /** Sets fields of a case's doc (a visible change: the cards are refreshed). */
  patchDoc(
    id: string,
    patch: Partial<CaseDoc>,
    options?: MutateOptions,
  ): Promise<StoredCase | undefined> {
    return this.mutate(
      id,
      (c) => {
        Object.assign(c.doc, patch);
        return true;
      },
      options,
    );
  }

  /** Appends to a case's history. */
  async history(caseId: string, kind: string, detail: Record<string, unknown>): Promise<void> {
    await this.store.appendHistory(caseId, { at: this.now(), kind, detail });
    // The lifecycle log and metrics listen here (observe.ts), so each event is recorded in one place.
    this.events.emit('history', caseId, kind, detail);
  }

  /**
   * Waits until `id` is terminal (or its delivery given up, or its ladder's final rung taken), `timeoutMs` passes or `signal` aborts
   * (shutdown); returns the case as it then is. Woken by the case's change events: in this process
   * they carry the case (no read), from other replicas they come through the store's change feed
   * (a read then); while nothing changes, a waiting request reads nothing.
   */
  async waitFor(
    id: string,
    timeoutMs: number,
    signal?: AbortSignal,
    /** Also returns when this says so of the case as it changed (`first`: as the wait began). */
    also?: (c: StoredCase, first: StoredCase) => boolean,
  ): Promise<StoredCase | undefined> {
    const deadline = this.now() + timeoutMs;
    let c = await this.store.getCase(id);
    const first = c;
    for (;;) {
      // Also ended: the ladder's final rung (nobody decided; the agent gets the policy answer).
      if (!c || isTerminal(c.status) || c.doc.delivery_failed || endedByPolicy(c)) return c;
      if (also && first && c !== first && also(c, first)) return c;
      const left = deadline - this.now();
      if (left <= 0 || signal?.aborted) return c;
      const woken = await this.nextChange(id, left, signal);
      // At the deadline the answer is read once more: it is the agent's view of the case.
      if (woken === 'deadline') return (await this.store.getCase(id)) ?? c;
      c = woken === 'read' ? await this.store.getCase(id) : woken;
    }
  }

  /** Resolves on the case's next change event (with the case when it came from this process). */
  private nextChange(
    id: string,
    left: number,
    signal: AbortSignal | undefined,
  ): Promise<StoredCase | 'read' | 'deadline'> {
    return new Promise((resolve) => {
      const done = (why: StoredCase | 'read' | 'deadline') => {
        clearTimeout(timer);
        this.events.off(`change:${id}`, onChange);
        this.events.off(CHANGES_MISSED, onMissed);
        signal?.removeEventListener('abort', onAbort);
        resolve(why);
      };
      const onChange = (next?: StoredCase) => done(next ?? 'read');
      const onMissed = () => done('read');
      const onAbort = () => done('deadline');
      const timer = setTimeout(() => done('deadline'), left);
      this.events.on(`change:${id}`, onChange);
      this.events.on(CHANGES_MISSED, onMissed);
      signal?.addEventListener('abort', onAbort);
    });
  }
}
