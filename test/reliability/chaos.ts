/**
 * The chaos run of issue 15's acceptance: a SIGKILL loop plus a disk-full phase, then a check that
 * every case was posted exactly once and ended final, with no orphan. Used at CI size by
 * chaos.test.ts and at full size (50 kills) by `npm run bench:chaos`.
 *
 * Real pieces only: `hitl-relay serve` as a child process (killed with SIGKILL at a random moment
 * while intakes, taps and completions are in flight), SQLite in one DATA_DIR throughout, the web
 * chat adapter, and the spec double as the HITL service (an honest peer on loopback). The agent
 * behaves as the README asks: an intake without an answer is sent again (same 202 body) until the
 * relay answers 200/201. The disk-full phase runs the relay in this process on the same DATA_DIR
 * with SQLite's max_page_count just above the file's size (a real SQLITE_FULL on every write).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay } from '../../src/relay.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { freePort, type RelayProcess, spawnRelay } from '../helpers/process.ts';

/** Sizes of a run. */
export interface ChaosOptions {
  kills: number;
  /** Concurrent agents sending intakes during each round. */
  agents?: number;
  /** Pause of each agent between intakes (keeps the case count bounded at CI size). */
  intakeGapMs?: number;
  /** Random time each relay lives before its SIGKILL (ms). */
  lifeMs?: [number, number];
  /** Run the disk-full phase after this many kills (default: half way). */
  diskFullAfter?: number;
  /** Longest wait for everything to settle at the end. */
  settleMs?: number;
  /**
   * LEASE_SECONDS of every relay (default: the relay's own, 30). A killed relay's leases and its
   * liveness key last this long, so the next relay takes its cases over this much later.
   */
  leaseSeconds?: number;
  log?: (line: string) => void;
}

/** What a run found. */
export interface ChaosFigures {
  kills: number;
  cases: number;
  /** Intakes sent (first sends and the agents' retries). */
  intakes: number;
  /** Intakes that got no answer (cut by a kill) and were sent again later. */
  retried: number;
  taps: number;
  diskFull: { accepted: number; refused507: number; otherStatus: Record<string, number> };
  /** Cases whose relay case is final (completed / expired / cancelled). */
  final: number;
  /** Cases with exactly one card in the web chat, that card final. */
  postedOnceFinal: number;
  /** Cases with no card, more than one card, or a card that is not final. */
  notPosted: string[];
  /** Cases with more than one card that no cut post explains (should be none). */
  duplicated: string[];
  /**
   * Cases with a second card because a kill cut their post between the platform's answer and its
   * record, so the post was taken over (history `post_retaken`): at least once, not exactly once.
   */
  repostedAfterCut: string[];
  notFinal: string[];
  /** Relay cases with no message row, or that no agent sent (should be none). */
  orphans: string[];
  /** Relay case rows (all of them) against service cases. */
  relayCases: number;
  /** Cases the service got more than one submit POST for (a relay-made second POST). */
  doubleSubmits: string[];
  wallMs: number;
}

interface AgentCase {
  body: Record<string, any>;
  caseId: string;
  room: string;
  relayId?: string;
  tapped?: boolean;
}

const rand = (a: number, b: number) => a + Math.floor(Math.random() * (b - a + 1));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the chaos loop and returns its figures (never throws for a relay fault: it counts it). */
export async function runChaos(o: ChaosOptions): Promise<ChaosFigures> {
  const log = o.log ?? (() => {});
  const started = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'hitl-chaos-'));
  writeFileSync(join(dataDir, 'relay-config.json'), '{}');
  const svc = await startSpecDouble();
  const env = {
    DATA_DIR: dataDir,
    RELAY_CONFIG: join(dataDir, 'relay-config.json'),
    PORT: String(await freePort()),
    DEMO: '0',
    LOG_LEVEL: 'warn',
    POLL_INTERVAL_MIN_SECONDS: '0.2',
    POLL_INTERVAL_MAX_SECONDS: '1',
    ...(o.leaseSeconds ? { LEASE_SECONDS: String(o.leaseSeconds) } : {}),
  };
  const cases: AgentCase[] = [];
  const figures = {
    intakes: 0,
    retried: 0,
    taps: 0,
    diskFull: { accepted: 0, refused507: 0, otherStatus: {} as Record<string, number> },
  };
  const agents = o.agents ?? 3;
  const [lifeMin, lifeMax] = o.lifeMs ?? [300, 1500];
  const diskFullAfter = o.diskFullAfter ?? Math.floor(o.kills / 2);
  let proc: RelayProcess | undefined;

  /** One intake as an agent sends it; records the relay id on 200/201. */
  const intake = async (url: string, c: AgentCase): Promise<number | null> => {
    figures.intakes++;
    try {
      const res = await request(`${url}/v1/cases`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target: `web:${c.room}`, response: c.body }),
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const answer = (await res.body.json().catch(() => null)) as { id?: string } | null;
      if ((res.statusCode === 200 || res.statusCode === 201) && answer?.id) c.relayId = answer.id;
      return res.statusCode;
    } catch {
      return null; // cut by the kill: the agent sends it again later
    }
  };
  const newCase = (room: string): AgentCase => {
    const body = svc.create();
    const c: AgentCase = { body, caseId: body.hitl.case_id, room };
    cases.push(c);
    return c;
  };
  /** Sends every intake that never got an answer (the agent's retry). */
  const retryUnanswered = async (url: string) => {
    for (const c of cases.filter((x) => !x.relayId)) {
      figures.retried++;
      await intake(url, c);
    }
  };
  /** Taps approve on a few posted cases (a person in the web chat). */
  const tapSome = async (url: string, n: number) => {
    const open = cases.filter((c) => c.relayId && !c.tapped);
    for (let i = 0; i < n && open.length; i++) {
      const c = open.splice(rand(0, open.length - 1), 1)[0]!;
      try {
        const res = await request(`${url}/web/api/rooms/${c.room}/messages`);
        const msgs = (await res.body.json()) as Array<{ id: string; case: string }>;
        const m = msgs.find((x) => x.case === c.relayId);
        if (!m) continue;
        c.tapped = true;
        figures.taps++;
        const tap = await request(
          `${url}/web/api/rooms/${c.room}/messages/${m.id}/actions/approve`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ user: { id: 'chaos', name: 'Chaos' } }),
          },
        );
        await tap.body.dump();
      } catch {}
    }
  };

  try {
    for (let round = 1; round <= o.kills; round++) {
      proc = await spawnRelay(env);
      const url = proc.url;
      await retryUnanswered(url);
      let live = true;
      const room = `chaos-${round}`;
      const load = [
        ...Array.from({ length: agents }, async () => {
          while (live) {
            if ((await intake(url, newCase(room))) === null) return;
            if (o.intakeGapMs) await sleep(o.intakeGapMs);
          }
        }),
        (async () => {
          while (live) {
            await tapSome(url, 2);
            // The reviewer answers some cases on the review page (the relay learns it by polling).
            const open = cases.filter((c) => c.relayId && !c.tapped);
            const pick = open[rand(0, Math.max(0, open.length - 1))];
            if (pick && svc.get(pick.caseId).status === 'pending')
              svc.complete(pick.caseId, 'reject');
            await sleep(50);
          }
        })(),
      ];
      await sleep(rand(lifeMin, lifeMax));
      await proc.kill('SIGKILL');
      live = false;
      await Promise.all(load);
      log(`kill ${round}/${o.kills}: ${cases.length} cases so far`);

      if (round === diskFullAfter) await diskFullPhase(dataDir, env, svc, cases, figures, log);
    }

    // The end: one relay that lives; the agents retry what never got an answer, the service
    // closes every case still open, and everything must settle.
    proc = await spawnRelay(env);
    const url = proc.url;
    await retryUnanswered(url);
    for (const c of cases)
      if (svc.get(c.caseId).status === 'pending' || svc.get(c.caseId).status === 'opened')
        svc.complete(c.caseId, 'reject');
    const deadline = Date.now() + (o.settleMs ?? 120_000);
    let report = await inspect(url, cases);
    while (Date.now() < deadline) {
      if (cases.some((c) => !c.relayId)) await retryUnanswered(url);
      report = await inspect(url, cases);
      log(
        `settling: ${report.final} final, ${report.notPosted.length} without a card, ${report.notFinal.length} not final`,
      );
      if (!report.notFinal.length && !report.notPosted.length && !report.duplicated.length) break;
      await sleep(500);
    }
    const relayCases = await countRelayCases(url);
    const doubleSubmits = cases
      .filter((c) => svc.seen('submit', c.caseId).length > 1)
      .map((c) => c.caseId);
    await proc.kill('SIGTERM');
    proc = undefined;
    const orphans = [...report.orphans, ...orphanRows(dataDir)];
    return {
      kills: o.kills,
      cases: cases.length,
      ...figures,
      final: report.final,
      postedOnceFinal: report.postedOnceFinal,
      notPosted: report.notPosted,
      duplicated: report.duplicated,
      repostedAfterCut: report.repostedAfterCut,
      notFinal: report.notFinal,
      orphans: [...new Set(orphans)],
      relayCases,
      doubleSubmits,
      wallMs: Date.now() - started,
    };
  } finally {
    await proc?.kill('SIGKILL');
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The disk fills: the relay runs in this process on the same DATA_DIR with max_page_count just
 * above the file's size. Intakes are sent until several are refused with 507; nothing may be
 * half-written (checked at the end with every other case).
 */
async function diskFullPhase(
  dataDir: string,
  env: Record<string, string>,
  svc: SpecDouble,
  cases: AgentCase[],
  figures: { diskFull: ChaosFigures['diskFull']; intakes: number },
  log: (line: string) => void,
): Promise<void> {
  const file = join(dataDir, 'hitl-relay.sqlite');
  const probe = new Database(file);
  const pages = probe.pragma('page_count', { simple: true }) as number;
  const free = probe.pragma('freelist_count', { simple: true }) as number;
  probe.close();
  const config = readConfig({ ...env, PORT: '0' });
  const relay = createRelay({
    config,
    // A few pages beyond what is used now (free pages are used first): the disk fills quickly.
    store: openSqliteStore(file, Date.now, { maxPageCount: pages - free + 8 }),
    adapters: [createWebAdapter()],
    log: createLogger({ level: 'silent' }),
  });
  await relay.start();
  try {
    const room = 'chaos-diskfull';
    for (let i = 0; i < 2000 && figures.diskFull.refused507 < 5; i++) {
      const body = svc.create({ hitl: { prompt: `Disk full ${i} ${'x'.repeat(600)}` } });
      const c: AgentCase = { body, caseId: body.hitl.case_id, room };
      cases.push(c);
      figures.intakes++;
      const res = await request(`${relay.url}/v1/cases`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target: `web:${room}`, response: body }),
      });
      const answer = (await res.body.json().catch(() => null)) as { id?: string } | null;
      if ((res.statusCode === 200 || res.statusCode === 201) && answer?.id) {
        c.relayId = answer.id;
        figures.diskFull.accepted++;
      } else if (res.statusCode === 507) figures.diskFull.refused507++;
      else {
        const k = String(res.statusCode);
        figures.diskFull.otherStatus[k] = (figures.diskFull.otherStatus[k] ?? 0) + 1;
      }
    }
  } finally {
    await relay.stop();
  }
  log(
    `disk full: ${figures.diskFull.accepted} taken, ${figures.diskFull.refused507} refused with 507`,
  );
}

/** Looks at every case the agents know through the API and the web chat. */
async function inspect(url: string, cases: AgentCase[]) {
  const r = {
    final: 0,
    postedOnceFinal: 0,
    notPosted: [] as string[],
    duplicated: [] as string[],
    repostedAfterCut: [] as string[],
    notFinal: [] as string[],
    orphans: [] as string[],
  };
  const rooms = new Map<string, Array<{ case: string; final: boolean }>>();
  for (const room of new Set(cases.map((c) => c.room))) {
    const res = await request(`${url}/web/api/rooms/${room}/messages`);
    rooms.set(room, res.statusCode === 200 ? ((await res.body.json()) as any) : []);
    if (res.statusCode !== 200) await res.body.dump();
  }
  for (const c of cases) {
    if (!c.relayId) {
      r.notPosted.push(c.caseId);
      r.notFinal.push(c.caseId);
      continue;
    }
    const res = await request(`${url}/v1/cases/${c.relayId}`);
    const view = (await res.body.json()) as any;
    const final = ['completed', 'expired', 'cancelled'].includes(view.status);
    if (final) r.final++;
    else r.notFinal.push(c.relayId);
    if (!view.messages?.length) r.orphans.push(c.relayId);
    const cards = rooms.get(c.room)!.filter((m) => m.case === c.relayId);
    if (cards.length === 0) r.notPosted.push(c.relayId);
    else if (cards.length > 1) {
      const cut = view.history?.some((h: { kind: string }) => h.kind === 'post_retaken');
      (cut ? r.repostedAfterCut : r.duplicated).push(c.relayId);
      // The recorded card ends final; the one the dead process posted is never edited.
      if (final && !cards.some((m) => m.final)) r.notFinal.push(`${c.relayId} (cards)`);
    } else if (cards[0]!.final && final) r.postedOnceFinal++;
    else if (final) r.notFinal.push(`${c.relayId} (card)`);
  }
  return r;
}

async function countRelayCases(url: string): Promise<number> {
  let n = 0;
  for (let offset = 0; ; offset += 500) {
    const res = await request(`${url}/v1/cases?limit=500&offset=${offset}`);
    const page = ((await res.body.json()) as { cases: unknown[] }).cases;
    n += page.length;
    if (page.length < 500) return n;
  }
}

/** Case rows without any message row, read straight from the SQLite file. */
function orphanRows(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'hitl-relay.sqlite'), { readonly: true });
  try {
    return (
      db
        .prepare(
          'SELECT id FROM cases c WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id)',
        )
        .all() as Array<{ id: string }>
    ).map((x) => x.id);
  } finally {
    db.close();
  }
}
