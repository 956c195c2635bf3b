/**
 * A counting proxy around a real Store: every call goes through to the store unchanged; the proxy
 * only records which method ran (and, for key-values, the key), so tests can assert how many
 * store calls and commits a step costs.
 */
import type { KeyValue } from '../../src/adapter.ts';
import type { Store } from '../../src/store/store.ts';

/** Store methods that only read (everything else writes: one commit per call). */
const READS = new Set([
  'getCase',
  'getCaseByKey',
  'findCase',
  'listCases',
  'listMessages',
  'findMessageByRef',
  'staleMessages',
  'orphanCases',
  'listHistory',
  'listDeliveries',
  'heldCases',
  'countByStatus',
  'openStats',
  'kv.get',
]);

/** Loops of the relay that run on timers, not on behalf of a tap or an intake. */
const BACKGROUND = new Set([
  'leaseDue',
  'heldCases',
  'leaseDeliveries',
  'staleMessages',
  'orphanCases',
  'purgeClosed',
  'purgeExpiredKv',
  'dropReviewUrls',
  'rescheduleOpen',
  'countByStatus',
  'openStats',
]);

/** One recorded call. */
export interface StoreCall {
  method: string;
  /** The key of a key-value call. */
  key?: string;
  /** How many items a call given a list was given (heldCases: the holds read back). */
  items?: number;
  write: boolean;
}

/** A counted store and what it saw. */
export interface CountedStore {
  store: Store;
  calls: StoreCall[];
  /** Forgets the calls so far. */
  reset(): void;
  /**
   * The calls made on behalf of requests: background loops (watcher, outbox, reconcile,
   * retention, readiness) left out; `web:` keys (the web chat's own message storage) counted apart.
   */
  summary(): { calls: number; commits: number; adapterCalls: number; methods: string[] };
}

/** Wraps `inner`; calls pass through untouched. */
export function countStore(inner: Store): CountedStore {
  const calls: StoreCall[] = [];
  const kv: KeyValue = new Proxy(inner.kv, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const method = `kv.${String(prop)}`;
        calls.push({ method, key: String(args[0]), write: !READS.has(method) });
        return v.apply(target, args);
      };
    },
  });
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'kv') return kv;
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function' || prop === 'close') return v;
      return (...args: unknown[]) => {
        const method = String(prop);
        // A change signal is named by its topic: the web chat's ("web:room:…") count as its own.
        const key = method === 'publishChange' ? { key: String(args[0]) } : {};
        const list = args.find((a) => Array.isArray(a)) as unknown[] | undefined;
        const items = list ? { items: list.length } : {};
        calls.push({ method, ...key, ...items, write: !READS.has(method) });
        return v.apply(target, args);
      };
    },
  });
  return {
    store,
    calls,
    reset: () => {
      calls.length = 0;
    },
    summary() {
      const ours = calls.filter((c) => !BACKGROUND.has(c.method) && !c.key?.startsWith('readyz:'));
      const core = ours.filter((c) => !c.key?.startsWith('web:'));
      return {
        calls: core.length,
        commits: core.filter((c) => c.write).length,
        adapterCalls: ours.length - core.length,
        methods: core.map((c) => (c.key ? `${c.method}(${c.key.split(':')[0]})` : c.method)),
      };
    },
  };
}
