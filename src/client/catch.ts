/** The shared catch step of the fetch wrapper and the interceptor: relay a HITL 202, then wait or move on. */
import { type HitlOutcome, outcomeOf } from './outcome.ts';
import { RelayClient, type RelayClientOptions, RelayError } from './relay-client.ts';

/** Request header that picks the target for one call; it is removed before the request leaves. */
export const TARGET_HEADER = 'x-hitl-relay-target';

/** How a caught 202 is relayed. */
export interface HitlCatchOptions {
  /** Where the case goes: "web:lobby", "slack:C0123", "route:ops", ... */
  target?: string | undefined;
  /**
   * `true` (default): wait for the human's answer; `{timeoutMs}`: wait at most that long (the
   * outcome then says `final: false`); `false`: return at once with the relay case id and move on.
   */
  await?: boolean | { timeoutMs: number } | undefined;
  /** A URL the relay POSTs the signed case view to when the case ends (docs/webhooks.md). */
  notify_url?: string | undefined;
  notify_on?: 'final' | 'all' | undefined;
  labels?: Record<string, string> | undefined;
  /**
   * Credentials for the service's watch endpoints (spec 8: poll_url accepts the original call's
   * auth). When not given, the original call's Authorization is passed along by default, but only
   * when poll_url has the same origin as the call.
   */
  service_auth?: { headers: Record<string, string> } | undefined;
  /** `false` turns the default pass-along of the call's Authorization off. */
  forwardAuthorization?: boolean | undefined;
}

/** Options of createHitlFetch and hitlInterceptor. */
export interface HitlRelayOptions extends HitlCatchOptions, RelayClientOptions {
  /** A ready client (otherwise one is made from relayUrl/apiKey). */
  client?: RelayClient;
}

/** The client of the options. */
export function clientOf(o: HitlRelayOptions): RelayClient {
  return o.client ?? new RelayClient(o);
}

/** Sends a caught 202 body to the relay and waits (or not) for its end. */
export async function relayHitl(
  client: RelayClient,
  body: unknown,
  o: HitlCatchOptions,
  signal?: AbortSignal,
  call?: OriginalCall,
): Promise<HitlOutcome> {
  if (!o.target)
    throw new RelayError(
      'no_target',
      `a HITL 202 arrived but no target is set: give "target" to the wrapper or send the ${TARGET_HEADER} header`,
    );
  let view = await client.send({
    target: o.target,
    response: body,
    notify_url: o.notify_url,
    notify_on: o.notify_on,
    labels: o.labels,
    service_auth: serviceAuthFor(body, o, call),
  });
  const wait = o.await ?? true;
  if (wait !== false && !view.final)
    view = await client.wait(view.id, {
      ...(typeof wait === 'object' ? { timeoutMs: wait.timeoutMs } : {}),
      ...(signal ? { signal } : {}),
    });
  if (view.delivery?.state === 'failed')
    throw new RelayError(
      'delivery_failed',
      `the relay could not deliver case ${view.id} to ${view.target}: ${view.delivery.reason ?? 'no target took it'}`,
      { details: view.messages.map((m) => ({ path: m.target, message: m.error ?? m.state })) },
    );
  return outcomeOf(view);
}

/** The service call whose 202 is being relayed: its URL and its Authorization header, if any. */
export interface OriginalCall {
  url: string;
  authorization: string | undefined;
}

/**
 * The service_auth to send with a caught 202: the explicit one, else the original call's
 * Authorization when poll_url is on the call's own origin (never to another origin).
 */
export function serviceAuthFor(
  body: unknown,
  o: HitlCatchOptions,
  call: OriginalCall | undefined,
): { headers: Record<string, string> } | undefined {
  if (o.service_auth) return o.service_auth;
  if (o.forwardAuthorization === false || !call?.authorization) return undefined;
  const pollUrl = (body as { hitl?: { poll_url?: unknown } } | null)?.hitl?.poll_url;
  if (typeof pollUrl !== 'string' || !URL.canParse(pollUrl) || !URL.canParse(call.url))
    return undefined;
  if (new URL(pollUrl).origin !== new URL(call.url).origin) return undefined;
  return { headers: { authorization: call.authorization } };
}
