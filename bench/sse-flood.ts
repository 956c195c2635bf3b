/**
 * Finding 2's acceptance figures: a hostile events_url floods one case for FLOOD_SECONDS (60 by
 * default) while /healthz and taps on other cases are timed; then a stream that stays just under
 * the event budget (2 events a second, every one a progress change) for the same time.
 * Prints RSS growth, database growth, /healthz p99 and another case's tap p99 for both.
 *   npx tsx bench/sse-flood.ts        (FLOOD_SECONDS=10 for a shorter run)
 */
import { measureFlood } from '../test/watch/flood.ts';

const seconds = Number(process.env.FLOOD_SECONDS ?? 60);
for (const [name, perSecond] of [
  ['full-speed flood', undefined],
  ['under the budget, 2 events/s', 2],
] as const) {
  const f = await measureFlood({ seconds, ...(perSecond ? { perSecond } : {}) });
  console.log(
    `${name}, ${seconds} s: events sent ${f.eventsSent}, case versions ${f.caseVersions}, history rows ${f.historyRows}, ` +
      `RSS growth ${f.rssGrowthMb.toFixed(1)} MB, database growth ${f.dbGrowthMb.toFixed(3)} MB, ` +
      `/healthz p99 ${f.healthzP99Ms.toFixed(1)} ms, other case's tap p99 ${f.tapP99Ms.toFixed(1)} ms (${f.taps} taps)`,
  );
}
process.exit(0);
