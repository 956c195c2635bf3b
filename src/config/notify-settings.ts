/** notify_url delivery settings: part of the configuration, read by the notify worker. */

/** Delivery settings (from the NOTIFY_* environment variables; see docs/webhooks.md). */
export interface NotifySettings {
  /** The signing secret; deliveries go unsigned without one (the local default). */
  secret: string | undefined;
  retryMinMs: number;
  retryMaxMs: number;
  maxAttempts: number;
  /** Per attempt, for the answer's headers and again for its body. */
  timeoutMs: number;
}

/** The defaults behind the NOTIFY_* variables. */
export const NOTIFY_DEFAULTS: NotifySettings = {
  secret: undefined,
  retryMinMs: 5_000,
  retryMaxMs: 3_600_000,
  maxAttempts: 20,
  timeoutMs: 10_000,
};
