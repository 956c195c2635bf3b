/** createHitlFetch: a fetch that hands every HITL 202 to the relay and returns the outcome with the response. */
import { isHitlResponse } from '../protocol/hitl.ts';
import {
  clientOf,
  type HitlCatchOptions,
  type HitlRelayOptions,
  relayHitl,
  TARGET_HEADER,
} from './catch.ts';
import type { HitlOutcome } from './outcome.ts';

/** The service's own response; `hitl` is set when it was a HITL 202 that went through the relay. */
export type HitlResponse = Response & { hitl?: HitlOutcome };

/** Per-call options: `hitl: false` turns catching off for this call. */
export type HitlRequestInit = RequestInit & { hitl?: HitlCatchOptions | false };

/** The wrapped fetch. */
export type HitlFetch = (
  input: string | URL | Request,
  init?: HitlRequestInit,
) => Promise<HitlResponse>;

/** Options of createHitlFetch. */
export interface HitlFetchOptions extends HitlRelayOptions {
  /** The fetch that calls services (default: globalThis.fetch); the relay is reached with `fetch` too unless `client` is given. */
  serviceFetch?: typeof fetch;
}

/**
 * Wraps fetch: a response that is 202 with a `hitl` object is sent to the relay (POST /v1/cases)
 * for the target of the call (init.hitl.target, else the X-Hitl-Relay-Target header, else
 * `target`), and the original response comes back with `.hitl` = the outcome (awaited unless
 * `await: false`). Any other response comes back untouched. Relay failures reject with RelayError.
 */
export function createHitlFetch(options: HitlFetchOptions): HitlFetch {
  const client = clientOf(options);
  const call = options.serviceFetch ?? options.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const { hitl: perCall, ...rest } = init ?? {};
    let headerTarget: string | undefined;
    if (rest.headers) {
      const headers = new Headers(rest.headers);
      headerTarget = headers.get(TARGET_HEADER) ?? undefined;
      if (headerTarget !== undefined) {
        headers.delete(TARGET_HEADER);
        rest.headers = headers;
      }
    }
    const res: HitlResponse = await call(input, rest);
    if (perCall === false || res.status !== 202) return res;
    let body: unknown;
    try {
      body = JSON.parse(await res.clone().text());
    } catch {
      return res; // not JSON: plain async, not ours
    }
    if (!isHitlResponse(res.status, body)) return res;
    const o: HitlCatchOptions = {
      target: options.target,
      await: options.await,
      notify_url: options.notify_url,
      notify_on: options.notify_on,
      labels: options.labels,
      service_auth: options.service_auth,
      forwardAuthorization: options.forwardAuthorization,
      ...(headerTarget ? { target: headerTarget } : {}),
      ...definedOnly(perCall ?? {}),
    };
    const callUrl = input instanceof Request ? input.url : String(input);
    const authorization =
      new Headers(rest.headers).get('authorization') ??
      (input instanceof Request ? input.headers.get('authorization') : null) ??
      undefined;
    const outcome = await relayHitl(client, body, o, rest.signal ?? undefined, {
      url: callUrl,
      authorization,
    });
    Object.defineProperty(res, 'hitl', { value: outcome, enumerable: true });
    return res;
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
