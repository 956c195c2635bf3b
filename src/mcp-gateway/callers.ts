/**
 * Which downstream client an upstream's own request (an elicitation) came for. The gateway runs
 * every request it sends upstream inside an async context naming its caller, so a request the
 * upstream makes within that call (a 2026-07-28 `input_required` round, a 2025 request on the
 * call's own stream) is known exactly. One that arrives outside any call (a 2025 server sending
 * on its standalone stream) is put down to the callers with calls in flight to that upstream at
 * that moment: the only one, or "one of" them, said so on the card.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** How a card names a downstream client: its API key's name, or the relay's one key. */
export const clientName = (client: string | null): string =>
  client ? `client "${client}"` : 'a client with the relay API key';

/** The downstream call a request sent upstream is: its caller and what it asked for. */
export interface CallOf {
  /** The caller's API key's name, or null (the relay's one key). */
  client: string | null;
  method: string;
  params: Record<string, unknown>;
  /**
   * Aborted when the client cancelled the call; its request's signal also aborts when a 2025
   * client only disconnected (then its retry may join the call's asks: input-join.ts).
   */
  cancelled?: AbortSignal | undefined;
}

/** The calls in flight to one upstream, by caller. */
export class Callers {
  private readonly context = new AsyncLocalStorage<{ name: string; call?: CallOf }>();
  private readonly inFlight = new Map<string, number>();

  /**
   * Runs `fn` (a request sent upstream) as a call of `client` (its API key's name, or null);
   * `request` is what it sends (an input_required round's ask is told which call it is for).
   */
  async run<T>(
    client: string | null,
    fn: () => Promise<T>,
    request?: Omit<CallOf, 'client'>,
  ): Promise<T> {
    const name = clientName(client);
    this.inFlight.set(name, (this.inFlight.get(name) ?? 0) + 1);
    try {
      return await this.context.run({ name, ...(request && { call: { client, ...request } }) }, fn);
    } finally {
      const left = (this.inFlight.get(name) ?? 1) - 1;
      if (left > 0) this.inFlight.set(name, left);
      else this.inFlight.delete(name);
    }
  }

  /** The call a request arriving now was made within (none outside a call). */
  call(): CallOf | undefined {
    return this.context.getStore()?.call;
  }

  /** Who a request arriving now came for, in words ("client "etl"", "one of …"). */
  now(): string {
    const within = this.context.getStore()?.name;
    if (within) return within;
    const names = [...this.inFlight.keys()].sort();
    if (names.length === 1) return names[0] as string;
    if (names.length > 1) return `one of ${names.join(', ')} (each had a call in flight)`;
    return 'no downstream client (no call was in flight)';
  }
}
