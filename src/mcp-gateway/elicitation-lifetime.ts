/**
 * An elicitation's ask lives no longer than the upstream request that asked it. When that request
 * ends without an answer (the upstream cancels it with notifications/cancelled, its connection
 * closes, the downstream call that caused it is cancelled and the upstream gives up), the ask is
 * withdrawn through the asks layer (its case cancelled at the relay's asks service, so every card
 * is edited to say nobody needs the answer any more) and the withdrawal is confirmed: the relay's
 * case ended and its card edits are done. On the relay's graceful stop every open elicitation ask
 * is withdrawn the same way, and at start-up the open ones a previous process left (their
 * requester is gone with it) are withdrawn too. Each ask is labelled with the process that holds
 * its request, so another live replica's asks are never taken for orphans.
 */
import { withdrawAsk } from '../asks-service/withdraw.ts';
import type { CardDelivery } from '../cases/card-delivery.ts';
import { ALIVE_TTL_MS, aliveKey } from '../cases/posting-lease.ts';
import type { HitlService } from '../hitl-service/index.ts';
import type { McpToolDeps } from '../mcp/tools.ts';
import { type AskWaits, waitIsOver } from '../mcp/waits.ts';
import type { StoredCase } from '../store/types.ts';

/** What the cards say when the upstream stopped waiting for the answer. */
export const ELICIT_WITHDRAWN =
  'no longer needed: the MCP server stopped waiting for this answer (its request was cancelled or its connection closed)';
/** What the cards say when the relay stopped while the ask was open. */
export const ELICIT_STOPPED =
  'no longer needed: the relay stopped, and the MCP server request that asked ended with it';
/** What the cards say of an ask a previous process left open. */
export const ELICIT_ORPHANED =
  'no longer needed: the MCP server request that asked ended with the relay process that held it';

/** The label naming the relay process that holds an elicitation's upstream request. */
export const HOLDER_LABEL = 'mcp_gateway_process';
/** The label every elicitation ask carries (its value: form or url). */
export const ELICITATION_LABEL = 'mcp_elicitation';
/** The labels of an ask for an upstream task's input request: the task's id, and its key. */
export const TASK_LABEL = 'mcp_task';
export const TASK_KEY_LABEL = 'mcp_task_key';

/** The label of a task-less input_required round's ask: its question's fingerprint (input-join.ts). */
export const JOIN_LABEL = 'mcp_input_join';

/** True for an ask a retried identical call may join after a restart (input-join.ts). */
export const isJoinAsk = (c: StoredCase): boolean => !!c.doc.labels?.[JOIN_LABEL];

/** True for the ask of an upstream task's input request (it outlives the relay process). */
export const isTaskAsk = (c: StoredCase): boolean =>
  !!c.doc.labels?.[TASK_LABEL] && !!c.doc.labels?.[TASK_KEY_LABEL];

/** How long a withdrawal waits for the relay to see the case end and edit its cards. */
const CONFIRM_MS = 5000;
/** Open cases read per page when looking for orphans. */
const PAGE = 200;

/** What withdrawing uses of the relay. */
export interface LifetimeDeps {
  relay: Pick<McpToolDeps, 'log' | 'store'>;
  asks: Pick<HitlService, 'act'>;
  waits: AskWaits;
  /** The relay's card delivery: a withdrawal is confirmed once the edits are done. */
  cards?: Pick<CardDelivery, 'settled'> | undefined;
}

/**
 * Withdraws `c` and waits (bounded) until the relay's case ended and its cards were edited: true
 * then; false (with a log line) when the service refused or the relay did not see the end in time.
 */
export async function withdrawConfirmed(
  d: LifetimeDeps,
  c: StoredCase,
  reason: string,
): Promise<boolean> {
  const log = d.relay.log;
  const at = { id: c.id, upstream: c.doc.labels?.mcp_upstream };
  try {
    await withdrawAsk(d.relay, d.asks, c, reason);
  } catch (err) {
    log.warn({ ...at, err: (err as Error).message }, 'mcp gateway: cannot withdraw an elicitation');
    return false;
  }
  const ended = await d.waits.until(c.id, undefined, AbortSignal.timeout(CONFIRM_MS), () => {});
  if (ended && !waitIsOver(ended)) {
    log.warn(at, 'mcp gateway: elicitation withdrawn, but its case has not ended here yet');
    return false;
  }
  await d.cards?.settled(c.id);
  log.info(at, 'mcp gateway: elicitation withdrawn; its cards say so');
  return true;
}

/**
 * The open elicitation asks of this process, each with how many callers wait on it (identical
 * calls join one ask: input-join.ts): withdrawn once, when the last one stops waiting or at stop.
 */
export class OpenElicitations {
  private readonly open = new Map<string, { c: StoredCase; holders: number }>();
  /** Asks being made: their card may be posted before they are held, so stop waits for them. */
  private readonly making = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly d: LifetimeDeps) {}

  /** True once the relay stops: new elicitations are answered `cancel` without asking. */
  get stopping(): boolean {
    return this.stopped;
  }

  /** How many asks are open (tests count them). */
  get size(): number {
    return this.open.size;
  }

  /** One more caller waits on `c`. */
  hold(c: StoredCase): void {
    const held = this.open.get(c.id);
    if (held) held.holders += 1;
    else this.open.set(c.id, { c, holders: 1 });
  }

  /**
   * One caller of ask `id` stops waiting: how many still wait (the ask is no longer held here at
   * 0; the caller then decides its fate), or -1 when it was not held (withdrawn at stop, say).
   */
  leave(id: string): number {
    const held = this.open.get(id);
    if (!held) return -1;
    held.holders -= 1;
    if (held.holders > 0) return held.holders;
    this.open.delete(id);
    return 0;
  }

  /** Whether ask `id` is held open here. */
  has(id: string): boolean {
    return this.open.has(id);
  }

  /** Runs `make` (an ask made, then held); a stop meanwhile waits for it before withdrawing. */
  whileMaking<T>(make: () => Promise<T>): Promise<T> {
    const p = make();
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    this.making.add(settled);
    void settled.then(() => this.making.delete(settled));
    return p;
  }

  /** The ask ended (answered, expired): nothing to withdraw. */
  release(id: string): void {
    this.open.delete(id);
  }

  /** Withdraws the ask of `c` for every caller, unless that was done already. */
  private async withdraw(c: StoredCase, reason: string): Promise<boolean> {
    if (!this.open.delete(c.id)) return false;
    return withdrawConfirmed(this.d, c, reason);
  }

  /**
   * The relay stops: every open ask is withdrawn, and no new one is made. The asks of upstream
   * tasks stay open: the task lives on upstream, and the next process resumes them; so do the
   * asks a retried identical call may join (input-join.ts).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.making]);
    const open = [...this.open.values()].map((h) => h.c).filter((c) => !outlivesStop(c));
    if (!open.length) return;
    this.d.relay.log.info({ open: open.length }, 'mcp gateway: stopping: withdrawing elicitations');
    await Promise.all(open.map((c) => this.withdraw(c, ELICIT_STOPPED)));
  }
}

/** True for an ask left open when the relay stops (a task's, or one a retry may join). */
export const outlivesStop = (c: StoredCase): boolean => isTaskAsk(c) || isJoinAsk(c);

/** The open elicitation asks not held by process `self`. */
async function othersAsks(d: LifetimeDeps, self: string): Promise<StoredCase[]> {
  const found: StoredCase[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await d.relay.store.listCases({ open: true, limit: PAGE, offset });
    for (const c of page) {
      const labels = c.doc.labels;
      if (labels?.[ELICITATION_LABEL] && labels[HOLDER_LABEL] !== self && !waitIsOver(c))
        found.push(c);
    }
    if (page.length < PAGE) return found;
  }
}

/** Takes over orphaned asks: those of upstream tasks (task-resume.ts), or joinable ones. */
export type ResumeOrphans = (asks: StoredCase[]) => Promise<void>;

/** Who takes the orphans that are not withdrawn at once. */
export interface OrphanTakers {
  /** The asks of upstream tasks (task-resume.ts). */
  resume?: ResumeOrphans | undefined;
  /** The asks a retried identical call may join, kept for a grace period (input-join.ts). */
  keep?: ((asks: StoredCase[]) => void) | undefined;
}

/**
 * Withdraws the open elicitation asks whose holding process is gone (no alive key; an ask made
 * before asks named their holder counts as gone); the asks of upstream tasks go to `resume`
 * instead, and the joinable ones to `keep`. An ask whose holder still looks alive (another
 * replica, or a process that died less than ALIVE_TTL_MS ago) is looked at once more after that.
 */
export async function withdrawOrphans(
  d: LifetimeDeps,
  self: string,
  takers: OrphanTakers = {},
  again = true,
): Promise<number> {
  const kv = d.relay.store.kv;
  const { resume, keep } = takers;
  let withdrawn = 0;
  let held = 0;
  const tasks: StoredCase[] = [];
  const kept: StoredCase[] = [];
  for (const c of await othersAsks(d, self)) {
    const holder = c.doc.labels?.[HOLDER_LABEL];
    if (holder && (await kv.get(aliveKey(holder))) !== undefined) {
      held += 1;
      continue;
    }
    if (resume && isTaskAsk(c)) tasks.push(c);
    else if (keep && isJoinAsk(c)) kept.push(c);
    else if (await withdrawConfirmed(d, c, ELICIT_ORPHANED)) withdrawn += 1;
  }
  if (keep && kept.length) keep(kept);
  if (resume && tasks.length) await resume(tasks);
  if (withdrawn)
    d.relay.log.info(
      { withdrawn },
      'mcp gateway: withdrew elicitations a previous relay process left open (their requester is gone)',
    );
  if (held && again) {
    const later = setTimeout(
      () => void withdrawOrphans(d, self, takers, false).catch(() => 0),
      ALIVE_TTL_MS,
    );
    later.unref();
  }
  return withdrawn;
}
