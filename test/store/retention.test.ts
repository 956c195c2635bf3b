/**
 * Retention end to end: many cases opened and closed through a real relay and the demo service.
 * Each closed case loses its submit token and service credentials at once; after RETENTION_DAYS a
 * pass deletes the cases with their rows and the expired key-values, and leaves open cases alone.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { purgeOnce } from '../../src/store/retention.ts';
import { createSealer } from '../../src/store/sealer.ts';
import { type DemoHandle, type RelayHandle, startDemo, startRelay } from '../helpers/relay-env.ts';

const CASES = 200;
let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()], env: { RETENTION_DAYS: '30' } });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

const count = (db: Database.Database, sql: string, ...p: unknown[]) =>
  (db.prepare(sql).get(...p) as { n: number }).n;

describe('retention', () => {
  it(`${CASES} cases closed: secrets wiped at once, then purged after the retention period`, async () => {
    const ids: string[] = [];
    const tokens: string[] = [];
    for (let i = 0; i < CASES; i++) {
      const response = await demo.create('approval', true);
      tokens.push(response.hitl.submit_token);
      const sent = await relay.send(`web:retention-${i % 10}`, response, {
        service_auth: { headers: { authorization: 'Bearer agent-credential-for-the-service' } },
      });
      expect(sent.status).toBe(201);
      ids.push(sent.body.id);
      await demo.act(response.hitl.case_id, {
        step: 'respond',
        action: i % 2 ? 'approve' : 'reject',
      });
    }
    const open = await demo.create('approval', true);
    const openId = (await relay.send('web:retention-open', open)).body.id;
    for (const id of ids) await relay.until(id, (c) => c.final, 30_000);

    const db = new Database(join(relay.dataDir, 'hitl-relay.sqlite'), { readonly: true });
    try {
      const sealer = createSealer(undefined);
      const rows = db.prepare('SELECT id, status, secrets FROM cases').all() as Array<{
        id: string;
        status: string;
        secrets: string;
      }>;
      for (const r of rows.filter((x) => x.id !== openId)) {
        const s = sealer.open(r.secrets);
        expect(s.submit_token).toBeNull();
        expect(s.service_headers).toBeUndefined();
      }
      const openSecrets = sealer.open(rows.find((x) => x.id === openId)!.secrets);
      expect(openSecrets.submit_token).toBe(open.hitl.submit_token);
      const raw = JSON.stringify(rows);
      for (const t of tokens) expect(raw).not.toContain(t);
      expect(raw).not.toContain('agent-credential-for-the-service');

      // 29 days on nothing goes; 31 days on every closed case and its rows go, the open one stays.
      const store = relay.relay.services.store;
      const day = 86_400_000;
      const now = Date.now();
      expect((await purgeOnce(store, { retentionMs: 30 * day }, now + 29 * day)).cases).toBe(0);
      const purged = await purgeOnce(store, { retentionMs: 30 * day, batch: 64 }, now + 31 * day);
      expect(purged.cases).toBe(CASES);
      expect(count(db, 'SELECT count(*) AS n FROM cases')).toBe(1);
      expect(count(db, 'SELECT count(*) AS n FROM history WHERE case_id != ?', openId)).toBe(0);
      expect(count(db, 'SELECT count(*) AS n FROM messages WHERE case_id != ?', openId)).toBe(0);
      // Leases, claims and marks with an expiry are gone; what is left has no expiry or a later one.
      expect(
        count(
          db,
          'SELECT count(*) AS n FROM kv WHERE until IS NOT NULL AND until <= ?',
          now + 31 * day,
        ),
      ).toBe(0);
      expect((await relay.get(openId)).status).toBe('pending');
    } finally {
      db.close();
    }
  });
});
