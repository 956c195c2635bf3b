/**
 * `Idempotency-Key` on POST /v1/asks: an agent that retries after a timeout gets the same case (the
 * same 202 hitl object, no second card) instead of asking twice. The key lives in the relay's
 * key-value store (shared by replicas) as a hash of the key, with the hash of the request body and,
 * once the ask exists, the relay's case id; never the 202 body, which holds the submit token.
 */
import { createHash } from 'node:crypto';
import type { KeyValue } from '../adapter.ts';

/** How long a key answers with its case (as payment APIs keep theirs). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** How long a key is held while its first request runs (a crash frees it after this). */
const PENDING_TTL_MS = 120_000;
/** Printable ASCII, as the IETF draft's examples; long enough for a UUID with a prefix. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** Why `key` is not a usable Idempotency-Key, or null. */
export function idempotencyKeyProblem(key: string): string | null {
  return KEY.test(key) ? null : 'Idempotency-Key must be 1-255 printable ASCII characters';
}

/** JSON with object keys sorted, so the same body written in another order is the same body. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

interface Entry {
  /** Hash of the request body. */
  h: string;
  /** The relay's case id once the ask exists. */
  id?: string;
}

/** What a request with a key may do. */
export type KeyClaim =
  | { kind: 'new' }
  | { kind: 'replay'; id: string }
  | { kind: 'conflict' }
  | { kind: 'in_progress' };

/** One key of one request: claim it first, then settle it with the case or release it. */
export class IdempotencyKey {
  private readonly kvKey: string;
  private readonly hash: string;

  constructor(
    private readonly kv: KeyValue,
    key: string,
    body: unknown,
  ) {
    this.kvKey = `asks:idempotency:${sha(key)}`;
    this.hash = sha(canonical(body));
  }

  /** new (this request creates the ask), replay (same body: its case), or why not. */
  async claim(): Promise<KeyClaim> {
    const mine = JSON.stringify({ h: this.hash } satisfies Entry);
    if (await this.kv.setIfAbsent(this.kvKey, mine, PENDING_TTL_MS)) return { kind: 'new' };
    const raw = await this.kv.get(this.kvKey);
    let entry: Entry | null = null;
    try {
      entry = raw ? (JSON.parse(raw) as Entry) : null;
    } catch {
      entry = null;
    }
    if (!entry) return { kind: 'in_progress' };
    if (entry.h !== this.hash) return { kind: 'conflict' };
    return entry.id ? { kind: 'replay', id: entry.id } : { kind: 'in_progress' };
  }

  /** The ask exists: the key answers with case `id` from now on. */
  async settle(id: string): Promise<void> {
    const entry: Entry = { h: this.hash, id };
    await this.kv.set(this.kvKey, JSON.stringify(entry), IDEMPOTENCY_TTL_MS);
  }

  /** The request failed before a case existed: the key is free again. */
  async release(): Promise<void> {
    await this.kv.delete(this.kvKey);
  }
}
