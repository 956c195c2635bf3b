/**
 * A task-less 2026-07-28 `input_required` round's ask survives a relay restart. The downstream
 * call and its `requestState` end with the relay, but the question does not: each such ask is
 * labelled with its fingerprint (upstream, caller, request method, tool and canonical arguments,
 * the inputRequests key and the elicitation request, each as SHA-256; never the `requestState`),
 * and the relay's key-value store (shared by replicas) maps the fingerprint to the ask, as the
 * tool gate's ledger maps a held call to its decision (tool-gate-ledger.ts). A retried identical
 * call's round then joins that ask (waits on it, or takes the answer a person already gave)
 * instead of posting a second card. The relay's stop leaves these asks open; the next process
 * keeps the ones a previous process left for JOIN_GRACE_MS, then withdraws those nobody joined.
 */
import { aliveKey } from '../cases/posting-lease.ts';
import { waitIsOver } from '../mcp/waits.ts';
import { sha256Of } from '../receipts/receipt.ts';
import type { StoredCase } from '../store/types.ts';
import type { CallOf } from './callers.ts';
import {
  JOIN_LABEL,
  type LifetimeDeps,
  type OpenElicitations,
  withdrawConfirmed,
} from './elicitation-lifetime.ts';
import { callDigest, GateLedger } from './tool-gate-ledger.ts';

/** How long the asks a previous process left are kept for a retry to join. */
export const JOIN_GRACE_MS = 10 * 60_000;
/** How often the kept asks are looked at (the grace is counted on the relay's clock). */
const LAPSE_CHECK_MS = 1000;
/** How long the note of which process joined an ask lives. */
const JOINED_TTL_MS = 24 * 60 * 60 * 1000;

/** What the cards say of a kept ask no retried call joined in time. */
export const ELICIT_NOT_RETRIED = `no longer needed: the call that asked ended with the relay process that held it, and was not retried within ${JOIN_GRACE_MS / 60_000} minutes of the restart`;

/** What the cards say of an ask kept after its 2025 client disconnected, when no retry came. */
export const ELICIT_NOT_RETRIED_AFTER_DISCONNECT = `no longer needed: the MCP client that asked disconnected without cancelling and did not retry the call within ${JOIN_GRACE_MS / 60_000} minutes`;

/**
 * The fingerprint of one input request of a task-less round of `call`: equal for the same
 * question of an identical call from the same client. Nothing secret goes in, only digests.
 */
export function inputFingerprint(
  upstream: string,
  call: CallOf,
  key: string,
  request: { method: string; params?: Record<string, unknown> | undefined },
): string {
  const { name, uri, arguments: args } = call.params;
  const tool = `${call.method} ${String(name ?? uri ?? '')}`;
  const asked = (args ?? {}) as Record<string, unknown>;
  const { _meta: _dropped, ...params } = request.params ?? {};
  return sha256Of({
    call: callDigest({ upstream, tool, client: call.client, args: asked }),
    key,
    request: sha256Of({ method: request.method, params }),
  });
}

/** What joining uses of the relay. */
export interface JoinDeps extends LifetimeDeps {
  /** This process (the note of who joined a kept ask). */
  self: string;
  /** The relay's clock. */
  now: () => number;
  open: OpenElicitations;
}

const joinedKey = (id: string) => `mrtr:joined:${id}`;

/** The joinable asks: found by fingerprint, and the leftovers kept for their grace. */
export class InputJoins {
  private readonly ledger: GateLedger;
  private readonly kept = new Map<string, { c: StoredCase; until: number; reason: string }>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly d: JoinDeps) {
    this.ledger = new GateLedger(d.relay.store.kv, 'mrtr');
  }

  /** The ask an identical call's round made: open, or answered and not yet taken. */
  async find(fp: string): Promise<StoredCase | undefined> {
    const mark = await this.ledger.find(fp);
    if (mark.kind !== 'ask') return undefined;
    const c = await this.d.relay.store.getCase(mark.id);
    if (!c || c.doc.labels?.[JOIN_LABEL] !== fp) return undefined;
    if (waitIsOver(c) && c.status !== 'completed') {
      await this.ledger.release(fp, c.id);
      return undefined;
    }
    this.kept.delete(c.id);
    await this.d.relay.store.kv.set(joinedKey(c.id), this.d.self, JOINED_TTL_MS);
    const at = { upstream: c.doc.labels?.mcp_upstream, id: c.id };
    this.d.relay.log.info(at, 'mcp gateway: a retried call joined the ask it had before');
    return c;
  }

  /** The ask of `fp` exists: identical rounds join it while it may be answered (and the grace). */
  made(fp: string, id: string, timeoutMs: number): Promise<void> {
    return this.ledger.created(fp, id, timeoutMs + JOIN_GRACE_MS);
  }

  /** The ask is over and its answer taken: the next identical call is a new question. */
  taken(fp: string, id: string): Promise<void> {
    return this.ledger.release(fp, id);
  }

  /**
   * Asks nobody waits on now (a previous process left them open; a 2025 client disconnected
   * without cancelling): kept for JOIN_GRACE_MS, then withdrawn with `reason` unless joined.
   */
  keep(asks: StoredCase[], reason: string): void {
    const until = this.d.now() + JOIN_GRACE_MS;
    for (const c of asks) this.kept.set(c.id, { c, until, reason });
    if (this.timer) return;
    this.timer = setInterval(() => void this.lapse().catch(() => undefined), LAPSE_CHECK_MS);
    this.timer.unref();
  }

  /** Withdraws the kept asks whose grace lapsed and that nobody joined. */
  private async lapse(): Promise<void> {
    const at = this.d.now();
    const due = [...this.kept.values()].filter((k) => k.until <= at);
    for (const { c, reason } of due) {
      this.kept.delete(c.id);
      const now = await this.d.relay.store.getCase(c.id);
      if (!now || waitIsOver(now) || (await this.joinedElsewhere(c.id))) continue;
      if (await withdrawConfirmed(this.d, c, reason))
        await this.ledger.release(String(c.doc.labels?.[JOIN_LABEL]), c.id);
    }
    if (!this.kept.size) this.close();
  }

  /** Whether a live process (this one holding it open, or another) joined ask `id`. */
  private async joinedElsewhere(id: string): Promise<boolean> {
    const kv = this.d.relay.store.kv;
    const by = await kv.get(joinedKey(id));
    if (by === undefined) return false;
    if (by === this.d.self) return this.d.open.has(id);
    return (await kv.get(aliveKey(by))) !== undefined;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
