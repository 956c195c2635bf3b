/**
 * A hostile events_url and what it costs the relay (finding 2): the stream sends
 * `review.in_progress` with changing progress as fast as the socket takes it (or at a set rate);
 * meanwhile /healthz and taps on other cases are timed. Used by test/watch/hostile-stream.test.ts
 * (a few seconds) and bench/sse-flood.ts (60 s, printed).
 */

import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { request } from 'undici';
import type { EventStreamOptions } from '../../src/watch/sse.ts';
import { startHostileService } from '../reliability/hostile-service.ts';
import { cards, startWatchRelay } from './helpers.ts';

/** What one flood run measured. */
export interface FloodFigures {
  seconds: number;
  eventsSent: number;
  /** Versions the flooded case went through (each is a stored change and a card edit). */
  caseVersions: number;
  historyRows: number;
  /** The flooded case's history kinds ("sse_fallback:<reason>" for a fallback). */
  history: string[];
  rssGrowthMb: number;
  dbGrowthMb: number;
  healthzP99Ms: number;
  tapP99Ms: number;
  taps: number;
  tapMs: number[];
}

function p99(xs: number[]): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)]!;
}

/** The database's size once its write-ahead log is folded in (the WAL is reused, not grown). */
function dbBytes(dir: string): number {
  const file = join(dir, 'hitl-relay.sqlite');
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return statSync(file).size;
}

/** Floods one case's stream for `seconds`; `perSecond` paces it (default: as fast as it drains). */
export async function measureFlood(o: {
  seconds: number;
  perSecond?: number;
  streams?: EventStreamOptions;
}): Promise<FloodFigures> {
  // The hostile service runs in its own process, as it would: its writing never shares our CPU time.
  const child = spawn(process.execPath, ['-e', FLOOD_SERVER, String(o.perSecond ?? 0)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.once('line', (l) => resolve(Number(l)));
    child.once('exit', () => reject(new Error('the flood server died')));
  });
  const floodUrl = `http://127.0.0.1:${port}`;
  const sentSoFar = async (): Promise<number> => {
    const res = await request(`${floodUrl}/sent`);
    return Number(await res.body.text());
  };
  const svc = await startHostileService();
  const relay = await startWatchRelay({ slow: true, streams: { ...o.streams } });
  try {
    // Cases to tap during the flood (an honest service), posted before it starts.
    const taps = Math.max(10, Math.round(o.seconds * 4));
    const others: Array<{ id: string }> = [];
    for (let i = 0; i < taps + 1; i++) others.push(await relay.send('web:others', svc.body202()));
    const room = await cards(relay, 'others');
    const tap = async (c: { id: string }) => {
      const card = room.find((m) => m.case === c.id);
      const t = performance.now();
      const res = await request(
        `${relay.url}/web/api/rooms/others/messages/${card.id}/actions/approve`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
        },
      );
      await res.body.text();
      return performance.now() - t;
    };
    await tap(others.shift()!); // warm-up, not counted
    // The flooding service's own case: every URL on its origin (a service is all of its URLs).
    const body = svc.body202();
    for (const f of ['poll_url', 'submit_url', 'review_url'])
      body.hitl[f] = body.hitl[f].replace(svc.url, floodUrl);
    body.hitl.events_url = `${floodUrl}/events/${body.hitl.case_id}`;
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    const db0 = dbBytes(relay.dataDir);
    const flooded = await relay.send('web:flood', body);
    const started = Date.now();
    const healthz: number[] = [];
    const tapMs: number[] = [];
    const until = started + o.seconds * 1000;
    const probe = (async () => {
      while (Date.now() < until) {
        const t = performance.now();
        const res = await request(`${relay.url}/healthz`);
        await res.body.text();
        healthz.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const tapper = (async () => {
      for (const c of others) {
        if (Date.now() >= until) break;
        tapMs.push(await tap(c));
        await new Promise((r) => setTimeout(r, Math.max(0, (o.seconds * 1000) / taps - 5)));
      }
    })();
    await Promise.all([probe, tapper]);
    const sent = await sentSoFar();
    const stored = await relay.relay.services.store.getCase(flooded.id);
    const history = await relay.relay.services.store.listHistory(flooded.id);
    global.gc?.();
    return {
      seconds: o.seconds,
      eventsSent: sent,
      caseVersions: stored?.version ?? 0,
      historyRows: history.length,
      history: history.map((h) =>
        h.kind === 'sse_fallback' ? `sse_fallback:${String(h.detail.reason)}` : h.kind,
      ),
      rssGrowthMb: (process.memoryUsage().rss - rss0) / 1e6,
      dbGrowthMb: (dbBytes(relay.dataDir) - db0) / 1e6,
      healthzP99Ms: p99(healthz),
      tapP99Ms: p99(tapMs),
      tapMs: tapMs.map((x) => Math.round(x)),
      taps: tapMs.length,
    };
  } finally {
    await relay.stop();
    await svc.close();
    child.kill();
  }
}

/** The flood server: GET /events/<case_id> streams review.in_progress; GET /sent counts them. */
const FLOOD_SERVER = `
const http = require('node:http');
const perSecond = Number(process.argv[1]);
let sent = 0;
const server = http.createServer((req, res) => {
  if (req.url === '/sent') return res.end(String(sent));
  const status = /^\\/cases\\/([^/]+)\\/status/.exec(req.url);
  if (status) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ status: 'pending', case_id: status[1] }));
  }
  const caseId = req.url.split('/').pop();
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  const one = () => {
    sent++;
    return 'id: ' + sent + '\\nevent: review.in_progress\\ndata: {"case_id":"' + caseId +
      '","progress":{"completed_fields":' + (sent % 1000) + ',"total_fields":1000}}\\n\\n';
  };
  if (perSecond) {
    const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(one())), 1000 / perSecond);
    return;
  }
  const pump = () => {
    while (!res.destroyed) if (!res.write(one())) return void res.once('drain', pump);
  };
  pump();
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;
