import type { KeyValue } from '../adapter.ts';

/** An in-process KeyValue with expiry: for one process without a store (tests of a lone adapter). */
export class MemoryKeyValue implements KeyValue {
  private readonly map = new Map<string, { value: string; until: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  async get(key: string): Promise<string | undefined> {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (hit.until <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return hit.value;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.map.set(key, { value, until: ttlMs ? this.now() + ttlMs : Number.POSITIVE_INFINITY });
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    if ((await this.get(key)) !== undefined) return false;
    await this.set(key, value, ttlMs);
    return true;
  }
}
