/** The embedded Store: one SQLite file (better-sqlite3, WAL). Cases survive restarts. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { KeyValue } from '../adapter.ts';
import { migrateSqlite } from './migrate-sqlite.ts';
import {
  HISTORY_CAP,
  HISTORY_CAPPED_DETAIL,
  type KvWrite,
  type NotifyDelivery,
  type StepWrites,
  type Store,
} from './store.ts';
import type { HistoryEntry, StoredCase, StoredMessage } from './types.ts';

interface CaseRow {
  id: string;
  key: string;
  origin: string;
  case_id: string;
  target: string;
  status: string;
  version: number;
  doc: string;
  secrets: string;
  next_check_at: number | null;
  etag: string | null;
  poll_failures: number;
  claim_holder: string | null;
  claim_until: number | null;
  created_at: number;
  updated_at: number;
}

function toCase(r: CaseRow): StoredCase {
  return {
    id: r.id,
    key: r.key,
    origin: r.origin,
    case_id: r.case_id,
    target: r.target,
    status: r.status as StoredCase['status'],
    version: r.version,
    doc: JSON.parse(r.doc),
    secrets: r.secrets,
    next_check_at: r.next_check_at,
    etag: r.etag,
    poll_failures: r.poll_failures,
    claim: r.claim_holder ? { holder: r.claim_holder, until: r.claim_until ?? 0 } : null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

function caseParams(c: StoredCase) {
  return {
    id: c.id,
    key: c.key,
    origin: c.origin,
    case_id: c.case_id,
    target: c.target,
    status: c.status,
    version: c.version,
    doc: JSON.stringify(c.doc),
    secrets: c.secrets,
    next_check_at: c.next_check_at,
    etag: c.etag,
    poll_failures: c.poll_failures,
    claim_holder: c.claim?.holder ?? null,
    claim_until: c.claim?.until ?? null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

const TERMINAL = "('completed','expired','cancelled')";
const DELIVERY_COLS =
  'id, case_id, event, url, body, state, attempts, next_attempt_at, last_error, created_at, delivered_at';

/** Opens (and migrates) the SQLite store at `file` (":memory:" for a throwaway one). */
export function openSqliteStore(
  file: string,
  now: () => number = Date.now,
  options: { maxPageCount?: number } = {},
): Store {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  migrateSqlite(db, now);
  // A size ceiling (pages of the page size); tests use it to make a real "disk full".
  if (options.maxPageCount) db.pragma(`max_page_count = ${Math.floor(options.maxPageCount)}`);

  const q = {
    insert:
      db.prepare(`INSERT INTO cases (id, key, origin, case_id, target, status, version, doc, secrets,
      next_check_at, etag, poll_failures, claim_holder, claim_until, created_at, updated_at)
      VALUES (@id, @key, @origin, @case_id, @target, @status, @version, @doc, @secrets, @next_check_at, @etag,
      @poll_failures, @claim_holder, @claim_until, @created_at, @updated_at)
      ON CONFLICT (origin, case_id) DO NOTHING`),
    byId: db.prepare<[string], CaseRow>('SELECT * FROM cases WHERE id = ?'),
    byKey: db.prepare<[string], CaseRow>('SELECT * FROM cases WHERE key = ?'),
    byCase: db.prepare<[string, string], CaseRow>(
      'SELECT * FROM cases WHERE origin = ? AND case_id = ?',
    ),
    listOpen: db.prepare<[number, number], CaseRow>(
      `SELECT * FROM cases WHERE status NOT IN ${TERMINAL} ORDER BY created_at DESC LIMIT ? OFFSET ?`,
    ),
    listAll: db.prepare<[number, number], CaseRow>(
      'SELECT * FROM cases ORDER BY created_at DESC LIMIT ? OFFSET ?',
    ),
    update:
      db.prepare(`UPDATE cases SET status = @status, version = @version, doc = @doc, secrets = @secrets,
      next_check_at = @next_check_at, etag = @etag, poll_failures = @poll_failures,
      updated_at = @updated_at WHERE id = @id AND version = @expected`),
    updateWatch: db.prepare(`UPDATE cases SET next_check_at = @next_check_at, etag = @etag,
      poll_failures = @poll_failures, lease_owner = NULL, lease_until = NULL WHERE id = @id`),
    claim: db.prepare(`UPDATE cases SET claim_holder = ?, claim_until = ? WHERE id = ?
      AND claim_holder IS NULL AND status NOT IN ${TERMINAL}`),
    takeOver: db.prepare(`UPDATE cases SET claim_holder = ?, claim_until = ? WHERE id = ?
      AND claim_holder = ? AND claim_until < ? AND status NOT IN ${TERMINAL}`),
    release: db.prepare(
      'UPDATE cases SET claim_holder = NULL, claim_until = NULL WHERE id = ? AND claim_holder = ?',
    ),
    due: db.prepare<
      [number, number, number],
      CaseRow
    >(`SELECT * FROM cases WHERE next_check_at IS NOT NULL
      AND next_check_at <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_check_at LIMIT ?`),
    lease: db.prepare('UPDATE cases SET lease_owner = ?, lease_until = ? WHERE id = ?'),
    releaseLeases: db.prepare(
      'UPDATE cases SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?',
    ),
    reschedule: db.prepare(`UPDATE cases SET next_check_at = @now + abs(random() % @spread)
      WHERE next_check_at IS NOT NULL AND next_check_at > @now`),
    reserve:
      db.prepare(`INSERT INTO messages (case_id, target, platform, address, ref_id, state, rendered_version,
      error, posted_at) VALUES (@case_id, @target, @platform, @address, @ref_id, @state, @rendered_version, @error,
      @posted_at) ON CONFLICT DO NOTHING`),
    updateMsg:
      db.prepare(`UPDATE messages SET ref_id = @ref_id, state = @state, rendered_version = @rendered_version,
      error = @error, posted_at = @posted_at WHERE case_id = @case_id AND target = @target`),
    listMsgs: db.prepare<[string], StoredMessage>(
      'SELECT * FROM messages WHERE case_id = ? ORDER BY rowid',
    ),
    msgByRef: db.prepare<[string, string], StoredMessage>(
      'SELECT * FROM messages WHERE platform = ? AND ref_id = ?',
    ),
    stale: db.prepare<
      [number],
      StoredMessage
    >(`SELECT m.* FROM messages m JOIN cases c ON c.id = m.case_id
      WHERE m.state = 'posting' OR (m.state = 'posted' AND m.rendered_version < c.version) LIMIT ?`),
    orphans: db.prepare<
      [number, number],
      CaseRow
    >(`SELECT * FROM cases c WHERE c.status NOT IN ${TERMINAL}
      AND c.created_at < ? AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id) LIMIT ?`),
    addHistory: db.prepare('INSERT INTO history (case_id, at, kind, detail) VALUES (?, ?, ?, ?)'),
    addHistoryCapped: db.prepare(`INSERT INTO history (case_id, at, kind, detail)
      SELECT @case_id, @at, CASE WHEN n >= @cap - 1 AND @kind <> 'status' THEN 'history_capped' ELSE @kind END,
        CASE WHEN n >= @cap - 1 AND @kind <> 'status' THEN @capped ELSE @detail END
      FROM (SELECT count(*) AS n FROM history WHERE case_id = @case_id)
      WHERE @kind = 'status' OR n < @cap - 1
        OR NOT EXISTS (SELECT 1 FROM history WHERE case_id = @case_id AND kind = 'history_capped')`),
    listHistory: db.prepare<[string], { at: number; kind: string; detail: string }>(
      'SELECT at, kind, detail FROM history WHERE case_id = ? ORDER BY seq',
    ),
    kvReleaseOwn: db.prepare<[string, string]>('DELETE FROM kv WHERE k = ? AND v = ?'),
    kvGet: db.prepare<[string, number], { v: string }>(
      'SELECT v FROM kv WHERE k = ? AND (until IS NULL OR until > ?)',
    ),
    kvSet: db.prepare(
      'INSERT INTO kv (k, v, until) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v, until = excluded.until',
    ),
    kvCas: db.prepare(
      'UPDATE kv SET v = ?, until = ? WHERE k = ? AND v = ? AND (until IS NULL OR until > ?)',
    ),
    kvDelete: db.prepare('DELETE FROM kv WHERE k = ?'),
    kvCad: db.prepare('DELETE FROM kv WHERE k = ? AND v = ? AND (until IS NULL OR until > ?)'),
    kvList: db.prepare<[string, string, number, number], { key: string; value: string }>(
      `SELECT k AS key, v AS value FROM kv WHERE substr(k, 1, length(?)) = ?
       AND (until IS NULL OR until > ?) ORDER BY k LIMIT ?`,
    ),
    kvSetIfAbsent:
      db.prepare(`INSERT INTO kv (k, v, until) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE
      SET v = excluded.v, until = excluded.until WHERE kv.until IS NOT NULL AND kv.until <= ?`),
    enqueue: db.prepare(`INSERT INTO notify_outbox (id, case_id, event, url, body, state, attempts,
      next_attempt_at, last_error, created_at, delivered_at) VALUES (@id, @case_id, @event, @url, @body, @state,
      @attempts, @next_attempt_at, @last_error, @created_at, @delivered_at) ON CONFLICT DO NOTHING`),
    dueDeliveries: db.prepare<[number, number, number], NotifyDelivery>(`SELECT ${DELIVERY_COLS}
      FROM notify_outbox WHERE state = 'pending' AND next_attempt_at <= ?
      AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_attempt_at LIMIT ?`),
    leaseDelivery: db.prepare(
      'UPDATE notify_outbox SET lease_owner = ?, lease_until = ?, attempts = attempts + 1 WHERE id = ?',
    ),
    delivered: db.prepare(`UPDATE notify_outbox SET state = 'delivered', delivered_at = ?,
      next_attempt_at = NULL, last_error = NULL, lease_owner = NULL, lease_until = NULL
      WHERE id = ? AND state = 'pending'`),
    attemptFailed: db.prepare(`UPDATE notify_outbox SET state = @state, next_attempt_at = @next,
      last_error = CASE WHEN @uncount = 1 THEN last_error ELSE @error END, lease_owner = NULL,
      lease_until = NULL, attempts = attempts - @uncount
      WHERE id = @id AND state = 'pending' AND lease_owner = @owner`),
    listDeliveries: db.prepare<[string], NotifyDelivery>(
      `SELECT ${DELIVERY_COLS} FROM notify_outbox WHERE case_id = ? ORDER BY created_at, rowid`,
    ),
    closedBefore: db.prepare<[number, number], { id: string }>(
      `SELECT id FROM cases WHERE status IN ('completed', 'expired', 'cancelled') AND updated_at < ? LIMIT ?`,
    ),
    purgeCase: [
      db.prepare<[string]>('DELETE FROM messages WHERE case_id = ?'),
      db.prepare<[string]>('DELETE FROM history WHERE case_id = ?'),
      db.prepare<[string]>('DELETE FROM notify_outbox WHERE case_id = ?'),
      db.prepare<[string]>('DELETE FROM cases WHERE id = ?'),
    ],
    purgeKv: db.prepare<[number]>('DELETE FROM kv WHERE until IS NOT NULL AND until <= ?'),
    counts: db.prepare<[], { status: string; n: number }>(
      'SELECT status, count(*) AS n FROM cases GROUP BY status',
    ),
  };

  const createTx = db.transaction(
    (
      c: StoredCase,
      messages: StoredMessage[],
      history: HistoryEntry | undefined,
      leases: KvWrite[],
    ) => {
      if (q.insert.run(caseParams(c)).changes !== 1) return false;
      for (const m of messages) q.reserve.run(m);
      if (history) q.addHistory.run(c.id, history.at, history.kind, JSON.stringify(history.detail));
      for (const l of leases) q.kvSet.run(l.key, l.value, l.until);
      return true;
    },
  );
  const addHistory = (caseId: string, e: HistoryEntry) =>
    q.addHistoryCapped.run({
      case_id: caseId,
      at: e.at,
      kind: e.kind,
      detail: JSON.stringify(e.detail),
      cap: HISTORY_CAP,
      capped: HISTORY_CAPPED_DETAIL,
    });
  const claimTx = db.transaction(
    (id: string, holder: string, until: number, history: HistoryEntry | undefined) => {
      if (q.claim.run(holder, until, id).changes !== 1) return false;
      if (history) addHistory(id, history);
      return true;
    },
  );
  const updateMsgTx = db.transaction(
    (
      m: StoredMessage,
      step: { history?: HistoryEntry[]; releaseLease?: string; leaseOwner?: string },
    ) => {
      q.updateMsg.run(m);
      for (const h of step.history ?? []) addHistory(m.case_id, h);
      if (step.releaseLease && step.leaseOwner)
        q.kvReleaseOwn.run(step.releaseLease, step.leaseOwner);
    },
  );

  const leaseTx = db.transaction((at: number, limit: number, owner: string, leaseMs: number) => {
    const rows = q.due.all(at, at, limit);
    for (const r of rows) q.lease.run(owner, at + leaseMs, r.id);
    return rows.map(toCase);
  });

  const updateTx = db.transaction(
    (
      c: StoredCase,
      expected: number,
      outbox: NotifyDelivery[] | undefined,
      step: StepWrites | undefined,
    ) => {
      const { claim_holder: _h, claim_until: _u, ...params } = caseParams(c);
      if (q.update.run({ ...params, expected }).changes !== 1) return false;
      for (const d of outbox ?? []) q.enqueue.run(d);
      for (const h of step?.history ?? []) addHistory(c.id, h);
      if (step?.releaseClaim) q.release.run(c.id, step.releaseClaim);
      return true;
    },
  );
  const leaseDeliveriesTx = db.transaction(
    (at: number, limit: number, owner: string, leaseMs: number) => {
      const rows = q.dueDeliveries.all(at, at, limit);
      for (const r of rows) q.leaseDelivery.run(owner, at + leaseMs, r.id);
      return rows.map((r) => ({ ...r, attempts: r.attempts + 1 }));
    },
  );

  const kv: KeyValue = {
    async get(k) {
      return q.kvGet.get(k, now())?.v;
    },
    async set(k, v, ttlMs) {
      q.kvSet.run(k, v, ttlMs ? now() + ttlMs : null);
    },
    async setIfAbsent(k, v, ttlMs) {
      const t = now();
      return q.kvSetIfAbsent.run(k, v, ttlMs ? t + ttlMs : null, t).changes === 1;
    },
    async compareAndSet(k, expected, v, ttlMs) {
      const t = now();
      return q.kvCas.run(v, ttlMs ? t + ttlMs : null, k, expected, t).changes === 1;
    },
    async delete(k) {
      q.kvDelete.run(k);
    },
    async compareAndDelete(k, expected) {
      return q.kvCad.run(k, expected, now()).changes === 1;
    },
    async list(prefix, limit) {
      return q.kvList.all(prefix, prefix, now(), limit);
    },
  };

  return {
    kv,
    async createCase(c, intents) {
      const created = createTx(c, intents?.messages ?? [], intents?.history, intents?.leases ?? []);
      // The inserted row is `c` itself; only another intake's case has to be read.
      if (created) return { case: toCase(caseParams(c)), created };
      return { case: toCase(q.byCase.get(c.origin, c.case_id)!), created };
    },
    async getCase(id) {
      const r = q.byId.get(id);
      return r && toCase(r);
    },
    async getCaseByKey(key) {
      const r = q.byKey.get(key);
      return r && toCase(r);
    },
    async findCase(origin, caseId) {
      const r = q.byCase.get(origin, caseId);
      return r && toCase(r);
    },
    async listCases({ open, limit, offset = 0 }) {
      return (open ? q.listOpen : q.listAll).all(limit, offset).map(toCase);
    },
    async updateCase(c, expected, outbox, step) {
      return updateTx(c, expected, outbox, step);
    },
    async updateWatch(id, w) {
      q.updateWatch.run({ id, ...w });
    },
    async claimCase(id, holder, until, history) {
      return claimTx(id, holder, until, history);
    },
    async takeOverClaim(id, expiredHolder, holder, until) {
      return q.takeOver.run(holder, until, id, expiredHolder, now()).changes === 1;
    },
    async releaseClaim(id, holder) {
      q.release.run(id, holder);
    },
    async leaseDue(at, limit, owner, leaseMs) {
      return leaseTx(at, limit, owner, leaseMs);
    },
    async releaseWatchLeases(owner) {
      return q.releaseLeases.run(owner).changes;
    },
    async rescheduleOpen(at, spreadMs) {
      return q.reschedule.run({ now: at, spread: Math.max(1, Math.floor(spreadMs)) }).changes;
    },
    async reserveMessage(m) {
      return q.reserve.run(m).changes === 1;
    },
    async updateMessage(m, step) {
      if (step) updateMsgTx(m, step);
      else q.updateMsg.run(m);
    },
    async listMessages(caseId) {
      return q.listMsgs.all(caseId);
    },
    async findMessageByRef(platform, refId) {
      return q.msgByRef.get(platform, refId);
    },
    async staleMessages(limit) {
      return q.stale.all(limit);
    },
    async orphanCases(before, limit) {
      return q.orphans.all(before, limit).map(toCase);
    },
    async appendHistory(caseId, e: HistoryEntry) {
      addHistory(caseId, e);
    },
    async listHistory(caseId) {
      return q.listHistory
        .all(caseId)
        .map((r) => ({ at: r.at, kind: r.kind, detail: JSON.parse(r.detail) }));
    },
    async enqueueDelivery(d) {
      return q.enqueue.run(d).changes === 1;
    },
    async leaseDeliveries(at, limit, owner, leaseMs) {
      return leaseDeliveriesTx(at, limit, owner, leaseMs);
    },
    async settleDelivery(id, owner, o) {
      if (o.state === 'delivered') q.delivered.run(o.at, id);
      else
        q.attemptFailed.run({
          id,
          owner,
          uncount: o.state === 'pending' && o.notAttempted ? 1 : 0,
          state: o.state,
          next: o.state === 'pending' ? o.next_attempt_at : null,
          error: o.error,
        });
    },
    async listDeliveries(caseId) {
      return q.listDeliveries.all(caseId);
    },
    async purgeClosed(before, limit) {
      return db.transaction(() => {
        const ids = q.closedBefore.all(before, limit);
        for (const { id } of ids) for (const stmt of q.purgeCase) stmt.run(id);
        return ids.length;
      })();
    },
    async purgeExpiredKv(t) {
      return q.purgeKv.run(t).changes;
    },
    async countByStatus() {
      return Object.fromEntries(q.counts.all().map((r) => [r.status, r.n]));
    },
    async openStats() {
      const r = db
        .prepare<[], { open: number; oldest: number | null; undelivered: number | null }>(
          `SELECT count(*) AS open, min(created_at) AS oldest,
        sum(CASE WHEN EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id AND m.state = 'posted') THEN 0 ELSE 1 END) AS undelivered
        FROM cases c WHERE status NOT IN ${TERMINAL}`,
        )
        .get();
      return {
        open: r?.open ?? 0,
        oldestCreatedAt: r?.oldest ?? null,
        undelivered: r?.undelivered ?? 0,
      };
    },
    async close() {
      db.close();
    },
  };
}
