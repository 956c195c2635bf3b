import type { KeyValue } from '../adapter.ts';

/** An in-process KeyValue with expiry: for one process without a store (tests of a lone adapter). */
export class MemoryKeyValue implements KeyValue {
  private readonly map = new Map<string, { value: string; until: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  /** Synchronous, so that each operation is atomic like a single statement in a store. */
  private live(key: string): string | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (hit.until <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return hit.value;
  }

  private put(key: string, value: string, ttlMs?: number): void {
    this.map.set(key, { value, until: ttlMs ? this.now() + ttlMs : Number.POSITIVE_INFINITY });
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.put(key, value, ttlMs);
  }

  async setIfAbsent(
    key: string,
    value: string,
    ttlMs?: number,
    also: ReadonlyArray<{ key: string; value: string }> = [],
  ): Promise<boolean> {
    if (this.live(key) !== undefined) return false;
    this.put(key, value, ttlMs);
    for (const e of also) this.put(e.key, e.value, ttlMs);
    return true;
  }

  async compareAndSet(key: string, expected: string, value: string, ttlMs?: number) {
    if (this.live(key) !== expected) return false;
    this.put(key, value, ttlMs);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.map.delete(key);
  }

  async compareAndDelete(key: string, expected: string): Promise<boolean> {
    if (this.live(key) !== expected) return false;
    this.map.delete(key);
    return true;
  }

  async list(prefix: string, limit: number): Promise<Array<{ key: string; value: string }>> {
    const out: Array<{ key: string; value: string }> = [];
    for (const key of [...this.map.keys()].filter((k) => k.startsWith(prefix)).sort()) {
      const value = this.live(key);
      if (value !== undefined) out.push({ key, value });
      if (out.length >= limit) break;
    }
    return out;
  }
}
