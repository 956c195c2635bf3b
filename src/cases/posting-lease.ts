/**
 * The posting lease of a message: a post can wait long in a platform's send pace, so it holds a
 * lease in the shared key-value store, and reconcile (in any replica) never posts a message again
 * while its first post may still be under way.
 */
import type { KeyValue } from '../adapter.ts';
import type { Logger } from '../log.ts';
import type { StoredMessage } from '../store/types.ts';
import type { CaseRepository } from './repository.ts';

/**
 * A running relay renews this key (relay.ts) while it lives. A posting lease whose holder's key
 * has lapsed belongs to a process that died mid-post (SIGKILL, OOM): it is taken over instead of
 * waited out, so the card is posted within about ALIVE_TTL_MS rather than after the lease.
 */
export const aliveKey = (instanceId: string) => `alive:${instanceId}`;
export const ALIVE_TTL_MS = 30_000;

/** The key of a message's posting lease. */
export const postingLeaseKey = (m: Pick<StoredMessage, 'case_id' | 'target'>) =>
  `posting:${m.case_id}:${m.target}`;

/**
 * A post still under way: no error so far and its posting lease held by a live process (which
 * renews it while the post waits its turn in a platform's send pace).
 */
export async function postUnderWay(
  kv: Pick<KeyValue, 'get'>,
  m: Pick<StoredMessage, 'case_id' | 'target' | 'state' | 'error'>,
): Promise<boolean> {
  if (m.state !== 'posting' || m.error !== null) return false;
  const holder = await kv.get(postingLeaseKey(m));
  return holder !== undefined && (await kv.get(aliveKey(holder))) !== undefined;
}

/** What taking a posting lease touches. */
export interface PostingLeaseDeps {
  kv: KeyValue;
  instanceId: string;
  now: () => number;
  leaseMs: number;
  log: Logger;
  cases: Pick<CaseRepository, 'history'>;
}

/** If the cut post did land, the chat now gets a second card: said in the history. */
async function retaken(d: PostingLeaseDeps, m: StoredMessage, holder: string): Promise<void> {
  await d.cases.history(m.case_id, 'post_retaken', { target: m.target });
  d.log.warn(
    { case: m.case_id, target: m.target, holder },
    'a post was cut by the death of its process; posting it again',
  );
}

/**
 * Our own lease with no post of ours under way: its release was lost (the store was down), so it
 * is ours to reuse rather than to wait out. A dead holder's lease is taken over, by one process
 * only (the compare-and-set from the dead holder succeeds once).
 */
async function takeable(d: PostingLeaseDeps, m: StoredMessage, lease: string): Promise<boolean> {
  const holder = await d.kv.get(lease);
  if (!holder || holder === d.instanceId) return true;
  if ((await d.kv.get(aliveKey(holder))) !== undefined) return false;
  if (!(await d.kv.compareAndSet(lease, holder, d.instanceId, d.leaseMs))) return false;
  await retaken(d, m, holder);
  return true;
}

/** Takes the posting lease of `m`; false when another live process holds it. */
export async function takePostingLease(d: PostingLeaseDeps, m: StoredMessage): Promise<boolean> {
  const lease = postingLeaseKey(m);
  if (!(await d.kv.setIfAbsent(lease, d.instanceId, d.leaseMs))) return takeable(d, m, lease);
  // A slot reserved (with its posting lease) longer ago than a lease lasts and never failed: its
  // lease lapsed with the process that held it, which may have posted before it died.
  const now = d.now();
  if (m.state === 'posting' && m.error === null && now - (m.posted_at ?? now) >= d.leaseMs)
    await retaken(d, m, 'lapsed');
  return true;
}

/** A long send-pace queue can outlast the lease: renews it while the post is pending (clear the timer). */
export function renewPostingLease(d: PostingLeaseDeps, lease: string): NodeJS.Timeout {
  const renew = setInterval(
    () => void d.kv.compareAndSet(lease, d.instanceId, d.instanceId, d.leaseMs).catch(() => {}),
    d.leaseMs / 3,
  );
  renew.unref();
  return renew;
}
