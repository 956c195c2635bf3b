/**
 * Cancellation of 2025-era calls. Served statelessly, a 2025 client's `notifications/cancelled`
 * arrives in a POST of its own, to a fresh server instance that never saw the call; this registry
 * of the calls open in this process carries it over by request id, within a scope that tells
 * clients apart where the front can (the MCP gateway's: API key name and the session id it gave
 * the client, mcp-gateway/legacy-session.ts). An id that more than one open call has in one scope
 * (two clients both at id 3) cancels none: withdrawing someone else's ask would be worse than
 * leaving one open. (On 2026-07-28 the client cancels by closing the call's own stream, which
 * aborts the call's signal directly.)
 */

/** The open 2025-era calls of this process, by JSON-RPC request id. */
export class LegacyCancels {
  private readonly open = new Map<string, Set<AbortController>>();

  /**
   * Registers a call; `signal` aborts when a cancel names its id in the same `scope`; `done()`
   * when it ends.
   */
  track(id: string | number, scope = ''): { signal: AbortSignal; done: () => void } {
    const key = keyOf(id, scope);
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

  /** A cancel for `id` in `scope`: true when exactly one open call had it (and it was aborted). */
  cancel(id: string | number, reason: string, scope = ''): boolean {
    const set = this.open.get(keyOf(id, scope));
    if (set?.size !== 1) return false;
    for (const c of set) c.abort(reason);
    return true;
  }
}

/** The registry key of request `id` in `scope` (a NUL cannot occur in either header value). */
const keyOf = (id: string | number, scope: string) => `${scope}\u0000${id}`;
