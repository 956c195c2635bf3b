/**
 * Soak (issue 18): 10,000 cases opened and closed through the engine with the web chat posting
 * each card. What the store keeps is bounded: every closed case's submit token and service
 * credentials are gone at once, coordination rows do not pile up, and after the retention period
 * one pass leaves nothing of them. The clock is the test's, so "30 days later" takes no time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import { purgeOnce } from '../../src/store/retention.ts';
import { createSealer } from '../../src/store/sealer.ts';
import { eventually } from '../helpers/relay-env.ts';

// SOAK_CASES=10000 passes too (65 s on the loaded 2-core machine, 2026-11-30); CI runs 2,000.
const CASES = Number(process.env.SOAK_CASES ?? 2_000);
const DAY = 86_400_000;
let clock = Date.parse('2026-11-30T10:00:00Z');
let relay: Relay;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-soak-'));

beforeAll(async () => {
  relay = createRelay({
    config: readConfig({ PORT: '0', DATA_DIR: dataDir, DEMO: '0', RETENTION_DAYS: '30' }),
    adapters: [createWebAdapter()],
    log: createLogger({ level: 'silent' }),
    now: () => clock,
    // Nothing is polled (the service is never reached); the test closes each case itself.
    watcher: { tickMs: 2 ** 31 - 1 },
  });
  await relay.start();
});
afterAll(async () => {
  await relay?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const hitl = (i: number) => ({
  spec_version: '0.8',
  case_id: `soak_${i}`,
  review_url: `http://127.0.0.1:9/review/soak_${i}?token=${'r'.repeat(40)}`,
  poll_url: `http://127.0.0.1:9/api/reviews/soak_${i}/status`,
  submit_url: `http://127.0.0.1:9/api/reviews/soak_${i}/respond`,
  submit_token: `submit-token-${i}-${'s'.repeat(40)}`,
  type: 'approval',
  prompt: `Soak case ${i}`,
  created_at: new Date(clock).toISOString(),
  expires_at: new Date(clock + DAY).toISOString(),
});

it(`${CASES.toLocaleString('en')} cases opened and closed: secrets gone at once, rows bounded, all purged after retention`, async () => {
  const engine = relay.services;
  const started = Date.now();
  for (let i = 0; i < CASES; i++) {
    const { case: c } = await engine.intake.ingest({
      target: `web:soak-${i % 20}`,
      hitl: hitl(i),
      service_headers: { authorization: `Bearer agent-credential-${i}` },
    });
    await engine.status.apply(
      c.id,
      { status: 'completed', case_id: c.case_id, result: { action: i % 2 ? 'approve' : 'reject' } },
      'poll',
    );
    clock += 10;
  }
  const ms = Date.now() - started;

  const db = new Database(join(dataDir, 'hitl-relay.sqlite'), { readonly: true });
  const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  try {
    expect(n('SELECT count(*) AS n FROM cases')).toBe(CASES);
    const sealer = createSealer(undefined);
    const secrets = (
      db.prepare('SELECT secrets FROM cases').all() as Array<{ secrets: string }>
    ).map((r) => sealer.open(r.secrets) as unknown as Record<string, unknown>);
    expect(secrets.filter((s) => s.submit_token || s.service_headers)).toEqual([]);
    // Coordination rows are a few per room, not per case. Per case there are only the web chat's
    // message and slot (kept 30 days) and the decision receipt (kept RECEIPT_RETENTION_DAYS).
    const perCase = n(
      "SELECT count(*) AS n FROM kv WHERE k NOT LIKE 'web:%' AND k NOT LIKE 'receipt:hc_%'",
    );
    expect(perCase).toBeLessThan(100);
    // Receipts are issued in the background as each case ends.
    await eventually(
      async () => n("SELECT count(*) AS n FROM kv WHERE k LIKE 'receipt:hc_%'") === CASES,
      30_000,
      'every receipt',
    );

    clock += 31 * DAY;
    const purged = await purgeOnce(engine.store, { retentionMs: 30 * DAY }, clock);
    expect(purged.cases).toBe(CASES);
    for (const t of ['cases', 'messages', 'history', 'notify_outbox'])
      expect(n(`SELECT count(*) AS n FROM ${t}`), t).toBe(0);
    // The web chat's messages lapsed 30 days after their last write and went with the pass.
    expect(n("SELECT count(*) AS n FROM kv WHERE k NOT LIKE 'receipt:hc_%'")).toBeLessThan(100);
    // Receipts outlive their cases until RECEIPT_RETENTION_DAYS (365).
    clock += 365 * DAY;
    await purgeOnce(engine.store, { retentionMs: 30 * DAY }, clock);
    expect(n('SELECT count(*) AS n FROM kv')).toBeLessThan(100);
  } finally {
    db.close();
  }
  console.log(`soak: ${CASES} cases opened and closed in ${ms} ms`);
}, 240_000);
