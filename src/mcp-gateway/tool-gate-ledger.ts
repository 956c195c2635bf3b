/**
 * The tool gate's two marks in the relay's key-value store (shared by replicas, kept across
 * restarts), which make a held call durable and exactly once:
 * - `gate:held:<digest>` → the ask of an identical call still waiting to be sent (digest: SHA-256
 *   of the canonical JSON of upstream, tool, client and arguments). A retry of the same call finds
 *   it and joins that decision instead of asking again; it goes once the call is sent or refused.
 * - `gate:sent:<ask id>` → set once, by the one caller that sends the approved call; every other
 *   caller that waited on the same ask is told it was sent already, so the upstream server sees a
 *   gated call once.
 * Never the arguments themselves: they are in the ask, which only its owner reads.
 */
import type { KeyValue } from '../adapter.ts';
import { sha256Of } from '../receipts/receipt.ts';

/** What `held` holds while the first caller is still creating the ask. */
const CREATING = '-';
/** How long a creating mark lives (a crash between the mark and the ask frees it after this). */
const CREATING_TTL_MS = 60_000;

/** The digest of a call: equal for identical calls from the same client. */
export function callDigest(c: {
  upstream: string;
  tool: string;
  client: string | null;
  args: Record<string, unknown>;
}): string {
  return sha256Of({ upstream: c.upstream, tool: c.tool, client: c.client, arguments: c.args });
}

/** The SHA-256 (hex) of the canonical JSON of the arguments sent (receipts carry the same). */
export const argumentsDigest = (args: Record<string, unknown>): string => sha256Of(args);

/** What a call finds under its digest. */
export type HeldMark = { kind: 'none' } | { kind: 'creating' } | { kind: 'ask'; id: string };

/** The gate's marks in `kv`. */
export class GateLedger {
  /** `prefix` names the marks (`gate`; an input_required round's joinable asks use their own). */
  constructor(
    private readonly kv: KeyValue,
    private readonly prefix = 'gate',
  ) {}

  private held = (digest: string) => `${this.prefix}:held:${digest}`;
  private sent = (id: string) => `${this.prefix}:sent:${id}`;

  /** What is held under `digest` now. */
  async find(digest: string): Promise<HeldMark> {
    const v = await this.kv.get(this.held(digest));
    if (v === undefined) return { kind: 'none' };
    return v === CREATING ? { kind: 'creating' } : { kind: 'ask', id: v };
  }

  /** Claims the right to create the ask for `digest`; false when another caller holds it. */
  claimCreate(digest: string): Promise<boolean> {
    return this.kv.setIfAbsent(this.held(digest), CREATING, CREATING_TTL_MS);
  }

  /** The ask exists: identical calls join it for `ttlMs`. */
  async created(digest: string, id: string, ttlMs: number): Promise<void> {
    await this.kv.set(this.held(digest), id, ttlMs);
  }

  /** The ask could not be made: the next identical call tries again. */
  async abandonCreate(digest: string): Promise<void> {
    await this.kv.compareAndDelete(this.held(digest), CREATING);
  }

  /** The held call is over (sent or refused): the next identical call is a new question. */
  async release(digest: string, id: string): Promise<void> {
    await this.kv.compareAndDelete(this.held(digest), id);
  }

  /** Claims the one send of ask `id`'s call; false when it was sent already. */
  claimSend(id: string, argsDigest: string, ttlMs: number): Promise<boolean> {
    return this.kv.setIfAbsent(this.sent(id), argsDigest, ttlMs);
  }

  /** Whether ask `id`'s call was sent. */
  async wasSent(id: string): Promise<boolean> {
    return (await this.kv.get(this.sent(id))) !== undefined;
  }
}
