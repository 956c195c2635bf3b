/**
 * Issue 15's acceptance: a 50-SIGKILL loop plus a disk-full phase; every case posted exactly once
 * and final, no orphan. Kills a real `hitl-relay serve` at a random moment 50 times while agents
 * send intakes (and retry unanswered ones), a person taps and the service completes cases; half
 * way the disk fills (SQLite max_page_count). Then one relay lives and everything must settle.
 * Prints the figures; exits 1 when a case was not posted exactly once, not final, or orphaned.
 *   npm run bench:chaos                (CHAOS_KILLS=10 for a shorter run)
 */
import { runChaos } from '../test/reliability/chaos.ts';

const kills = Number(process.env.CHAOS_KILLS ?? 50);
const t0 = Date.now();
const f = await runChaos({
  kills,
  agents: 2,
  lifeMs: [300, 1500],
  settleMs: 300_000,
  log: (line) => {
    if (!line.startsWith('settling') || process.env.CHAOS_VERBOSE)
      console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s  ${line}`);
  },
});
const bad = f.notPosted.length + f.duplicated.length + f.notFinal.length + f.orphans.length;
console.log(
  [
    `kills: ${f.kills} SIGKILL + a disk-full phase, ${(f.wallMs / 1000).toFixed(0)} s`,
    `cases: ${f.cases} (intakes sent ${f.intakes}, of them ${f.retried} agent retries after a kill; ${f.taps} taps)`,
    `disk full: ${f.diskFull.accepted} taken, ${f.diskFull.refused507} refused with 507, other answers ${JSON.stringify(f.diskFull.otherStatus)}`,
    `posted exactly once and final: ${f.postedOnceFinal} of ${f.cases}; relay case rows ${f.relayCases}`,
    `posted twice after a kill cut the post (history post_retaken): ${f.repostedAfterCut.length}`,
    `not posted ${f.notPosted.length}, duplicated otherwise ${f.duplicated.length}, not final ${f.notFinal.length}, orphans ${f.orphans.length}, cases with a second submit POST ${f.doubleSubmits.length}`,
  ].join('\n'),
);
if (bad)
  console.log(
    JSON.stringify({
      notPosted: f.notPosted,
      duplicated: f.duplicated,
      notFinal: f.notFinal,
      orphans: f.orphans,
    }),
  );
process.exit(bad ? 1 : 0);
