/**
 * Cancellation of 2025-era calls. Served statelessly, a 2025 client's `notifications/cancelled`
 * arrives in a POST of its own, to a fresh server instance that never saw the call; this registry
 * of the calls open in this process carries it over by request id. An id that more than one open
 * call has (two clients both at id 3) cancels none: withdrawing someone else's ask would be worse
 * than leaving one open. (On 2026-07-28 the client cancels by closing the call's own stream, which
 * aborts the call's signal directly.)
 */

/** The open 2025-era calls of this process, by JSON-RPC request id. */
export class LegacyCancels {
  private readonly open = new Map<string, Set<AbortController>>();

  /** Registers a call; `signal` aborts when a cancel names its id; `done()` when it ends. */
  track(id: string | number): { signal: AbortSignal; done: () => void } {
    const key = String(id);
    const controller = new AbortController();
    const set = this.open.get(key) ?? new Set();
    set.add(controller);
    this.open.set(key, set);
    return {
      signal: controller.signal,
      done: () => {
        set.delete(controller);
        if (!set.size && this.open.get(key) === set) this.open.delete(key);
      },
    };
  }

  /** A cancel for `id`: true when exactly one open call had it (and it was aborted). */
  cancel(id: string | number, reason: string): boolean {
    const set = this.open.get(String(id));
    if (set?.size !== 1) return false;
    for (const c of set) c.abort(reason);
    return true;
  }
}
