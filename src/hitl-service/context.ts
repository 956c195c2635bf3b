/** What every route of the HITL service shares. */
import type { Context } from 'hono';
import type { Logger } from '../log.ts';
import type { CaseLifecycle } from './lifecycle.ts';
import type { ServiceProfile } from './profile.ts';
import type { RateLimiter } from './respond-limit.ts';
import type { ServiceStore } from './service-store.ts';
import type { FaultKind, FaultRoute } from './types.ts';

/** What an injected fault left to do: answer with `response`, or go on (after a delay for `slow`). */
export type FaultOutcome = { kind: FaultKind; response: Response | null };

/** Broken answers a test harness injects (the demo's test controls); the product has none. */
export interface FaultInjector {
  /** Takes the next fault queued for `route` and applies it to this request; undefined when none. */
  apply(c: Context, route: FaultRoute): Promise<FaultOutcome | undefined>;
}

/** The service's parts, handed to each route module. */
export interface ServiceDeps {
  store: ServiceStore;
  lifecycle: CaseLifecycle;
  faults?: FaultInjector | undefined;
  limiter: RateLimiter;
  now: () => number;
  log: Logger;
  pollRetryAfterSeconds: number;
  /** What this configuration of the service checks and shows (the asks profile, the demo's). */
  profile: ServiceProfile;
  /** The absolute base of every URL the service hands out, for this request. */
  base(c: Context): string;
}

/** A JSON error body: `{error, message, ...extra}`. */
export function errorBody(
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { error, message, ...extra };
}
