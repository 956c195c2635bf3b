/** What every route of the demo service shares. */
import type { Context } from 'hono';
import type { Logger } from '../log.ts';
import type { DemoEngine } from './engine.ts';
import type { FaultQueue } from './faults.ts';
import type { ServiceProfile } from './profile.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { ServiceStore } from './store.ts';

/** The service's parts, handed to each route module. */
export interface DemoDeps {
  store: ServiceStore;
  engine: DemoEngine;
  faults: FaultQueue;
  limiter: RateLimiter;
  now: () => number;
  log: Logger;
  pollRetryAfterSeconds: number;
  /** A configuration of the service other than the demo's (the relay's asks service). */
  profile?: ServiceProfile;
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
