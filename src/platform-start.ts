/** Starting one platform adapter: a passing failure is retried with backoff, a refusal is reported. */
import type {
  AdapterContext,
  AdapterSignals,
  AdapterStrings,
  PlatformAdapter,
  Tap,
  TapReply,
} from './adapter.ts';
import { PlatformError } from './errors.ts';
import { type Health, isNetworkError } from './health.ts';
import type { Logger } from './log.ts';
import type { Store } from './store/store.ts';

/** What starting a platform touches. */
export interface PlatformStartDeps {
  store: Pick<Store, 'kv'>;
  log: Logger;
  health: Health;
  onTap(tap: Tap): Promise<TapReply>;
  mayAnswer(tap: Tap): Promise<TapReply | null>;
  /** `/pending`: the open cases of a chat a person may decide. */
  pending?: AdapterContext['pending'];
  /** The inbox: a person's open cases across a platform's chats. */
  inbox?: AdapterContext['inbox'];
  /** Who of some people may decide a case in a chat. */
  deciders?: AdapterContext['deciders'];
  /** `/pending`'s "Re-post" button. */
  repost?: AdapterContext['repost'];
  /** Records a platform's delivery receipt on the card's case. */
  recordDelivery?: AdapterContext['recordDelivery'];
  /** The adapters' texts in the relay's LOCALE. */
  strings: AdapterStrings;
  /** Seals an adapter's own secrets under RELAY_SECRET_KEY (AdapterContext.sealer). */
  sealer: NonNullable<AdapterContext['sealer']>;
  /** Change signals across replicas (the web chat's waiting pages). */
  signals: AdapterSignals;
  /** True once shutdown began: no more attempts. */
  closing(): boolean;
  /** Wakes the retry sleeps at shutdown. */
  retrySleeps: Set<() => void>;
  startRetry?: { minMs?: number; maxMs?: number } | undefined;
  onFatal?: ((part: string, reason: string) => void) | undefined;
}

/** Sleeps `ms` (unref'd), or until shutdown wakes it. */
function sleep(d: PlatformStartDeps, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      d.retrySleeps.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    timer.unref();
    d.retrySleeps.add(wake);
  });
}

/** One attempt: 'up', 'refused' (a person must fix it) or the delay before the next attempt. */
async function attempt(
  d: PlatformStartDeps,
  a: PlatformAdapter,
  n: number,
  delay: number,
): Promise<'up' | 'refused' | number> {
  const part = `platform:${a.platform}`;
  const plog = d.log.child({ platform: a.platform });
  try {
    await a.start({
      kv: d.store.kv,
      log: plog,
      onTap: d.onTap,
      mayAnswer: d.mayAnswer,
      strings: d.strings,
      sealer: d.sealer,
      signals: d.signals,
      ...(d.recordDelivery ? { recordDelivery: d.recordDelivery } : {}),
      ...(d.pending ? { pending: d.pending } : {}),
      ...(d.inbox ? { inbox: d.inbox } : {}),
      ...(d.deciders ? { deciders: d.deciders } : {}),
      ...(d.repost ? { repost: d.repost } : {}),
      reportDown: (reason) =>
        reason === null ? d.health.set(part, 'up') : d.health.set(part, 'failed', reason),
    });
    d.health.set(part, 'up');
    if (n > 1) plog.info({ attempt: n }, `${a.platform} is up after ${n} attempts`);
    return 'up';
  } catch (err) {
    const passing = err instanceof PlatformError ? err.retryable : isNetworkError(err);
    const why = err instanceof Error ? err.message : String(err);
    if (!passing) {
      const fix = a.credentialEnv ? `check ${a.credentialEnv}` : 'check its configuration';
      const reason = `${why}; ${fix} and restart`;
      d.health.refuse(part, reason);
      plog.error({ part, env: a.credentialEnv }, `${a.platform} refused to start: ${reason}`);
      d.onFatal?.(part, reason);
      return 'refused';
    }
    // Jitter, so replicas that lost the network together do not retry in step.
    const wait = Math.round(delay * (0.8 + Math.random() * 0.4));
    d.health.set(part, 'down', `${why}; retrying`);
    plog.warn(
      { part, attempt: n, retry_in_ms: wait },
      `${a.platform} start failed (attempt ${n}): ${why}; retrying in ${wait} ms`,
    );
    return wait;
  }
}

/** Starts one adapter; resolves after the first attempt, retrying passing failures in the background. */
export function startPlatform(d: PlatformStartDeps, a: PlatformAdapter): Promise<void> {
  const minMs = d.startRetry?.minMs ?? 1000;
  const maxMs = d.startRetry?.maxMs ?? 60_000;
  return new Promise<void>((firstAttemptDone) => {
    void (async () => {
      let delay = minMs;
      for (let n = 1; !d.closing(); n++) {
        const r = await attempt(d, a, n, delay);
        if (typeof r !== 'number') break;
        firstAttemptDone();
        await sleep(d, r);
        delay = Math.min(maxMs, delay * 2);
      }
      firstAttemptDone();
    })();
  });
}
