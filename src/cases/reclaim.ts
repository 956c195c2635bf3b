/**
 * Leases reclaimed at start when their owner is gone (issue 18). A process that was killed
 * (SIGKILL, OOM) cannot give its leases back; they would block their work until they lapse. At
 * start a process looks at who holds leases and gives back those whose holder's liveness key
 * (`alive:<instance>`, renewed by every running relay) is gone (poll leases also every lease length), each with a compare on the holder
 * so a live holder's lease is never touched:
 * - poll leases (case rows): released, so the case is polled at once;
 * - event-stream leases (`sse:lease:<case>` = `<instance>|<healthy>`): compareAndDelete, so the
 *   next look at the case opens its stream;
 * - posting leases (`posting:<case>:<target>`) are counted but left in place: card delivery takes
 *   over a dead holder's posting lease itself and writes `post_retaken` in the case's history (the
 *   cut post may have landed, so the chat may show a second card); deleting the lease here would
 *   lose that record.
 * Tap claims are never released here: a dead holder's submit may have reached the service, so its
 * claim is taken over only after it lapses and a poll has shown the case still open (tap/claim.ts).
 */
import type { KeyValue } from '../adapter.ts';
import type { Logger } from '../log.ts';
import type { WatchRows } from '../store/store.ts';
import { aliveKey } from './posting-lease.ts';

/** Leases looked at per kind in one pass (more are left to lapse; the log says so). */
const LIST_LIMIT = 10_000;

/** What reclaimLeases needs. */
export interface ReclaimDeps {
  kv: KeyValue;
  /** Poll leases live in the case rows: who holds them, and giving back all of one owner's. */
  watch: Pick<WatchRows, 'watchLeaseOwners' | 'releaseWatchLeases'>;
  now: () => number;
  log: Logger;
  /** This process: its own leases are its own business. */
  self: string;
  /** A dead owner's cases come due within this much of now (one minimum poll interval). */
  spreadMs: number;
}

/** What one pass did. */
export interface Reclaimed {
  /** Poll leases given back, and how many dead owners held them. */
  poll: number;
  pollOwners: number;
  /** Event-stream leases deleted. */
  streams: number;
  /** Posting leases of dead holders, left for card delivery's takeover. */
  postingLeft: number;
}

/** Whether `holder` is a running relay (its liveness key is live); answers are kept per pass. */
function liveness(kv: KeyValue, self: string) {
  const known = new Map<string, Promise<boolean>>([[self, Promise.resolve(true)]]);
  return (holder: string): Promise<boolean> => {
    let alive = known.get(holder);
    if (!alive) {
      alive = kv.get(aliveKey(holder)).then((v) => v !== undefined);
      known.set(holder, alive);
    }
    return alive;
  };
}

async function reclaimPoll(d: ReclaimDeps, isAlive: (h: string) => Promise<boolean>) {
  let poll = 0;
  let pollOwners = 0;
  for (const owner of await d.watch.watchLeaseOwners(d.now())) {
    if (await isAlive(owner)) continue;
    poll += await d.watch.releaseWatchLeases(owner, d.now(), d.spreadMs);
    pollOwners++;
  }
  return { poll, pollOwners };
}

async function reclaimStreams(d: ReclaimDeps, isAlive: (h: string) => Promise<boolean>) {
  const leases = await d.kv.list('sse:lease:', LIST_LIMIT);
  let streams = 0;
  for (const { key, value } of leases) {
    const holder = value.slice(0, value.lastIndexOf('|'));
    if (await isAlive(holder)) continue;
    // Only the value we saw: a lease renewed or taken since is left alone.
    if (await d.kv.compareAndDelete(key, value)) streams++;
  }
  return { streams, truncated: leases.length >= LIST_LIMIT };
}

async function countDeadPosting(d: ReclaimDeps, isAlive: (h: string) => Promise<boolean>) {
  const leases = await d.kv.list('posting:', LIST_LIMIT);
  let postingLeft = 0;
  for (const { value } of leases) if (!(await isAlive(value))) postingLeft++;
  return postingLeft;
}

/**
 * The poll leases of processes that died since start (a lease holds its cases for several looks,
 * so waiting for it to lapse would leave them unwatched for minutes): run every lease length.
 */
export async function reclaimPollLeases(d: ReclaimDeps): Promise<number> {
  const { poll, pollOwners } = await reclaimPoll(d, liveness(d.kv, d.self));
  if (poll)
    d.log.warn({ poll, pollOwners }, 'gave back the poll leases of processes that are gone');
  return poll;
}

/** One pass (at start): gives back the leases of holders that are gone; logs how many. */
export async function reclaimLeases(d: ReclaimDeps): Promise<Reclaimed> {
  const isAlive = liveness(d.kv, d.self);
  const { poll, pollOwners } = await reclaimPoll(d, isAlive);
  const { streams, truncated } = await reclaimStreams(d, isAlive);
  const postingLeft = await countDeadPosting(d, isAlive);
  const r = { poll, pollOwners, streams, postingLeft };
  d.log.info(
    r,
    poll || streams || postingLeft
      ? 'reclaimed the leases of processes that are gone (posting leases are taken over by card delivery)'
      : 'no leases of processes that are gone',
  );
  if (truncated)
    d.log.warn({ limit: LIST_LIMIT }, 'more stream leases than one pass looks at; the rest lapse');
  return r;
}
