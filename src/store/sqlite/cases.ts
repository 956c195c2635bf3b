/** SQLite: the case rows (intake, reads, the compare-and-set change) and their counts. */
import type Database from 'better-sqlite3';
import type { CaseRows, KvWrite, NotifyDelivery, StepWrites } from '../store.ts';
import type { HistoryEntry, StoredCase, StoredMessage } from '../types.ts';
import { type AddHistory, firstHistoryWriter } from './history.ts';
import type { KvWrites } from './kv.ts';
import { type CaseRow, caseParams, TERMINAL, toCase } from './rows.ts';

/** The other concerns' statements a case write carries in its transaction. */
export interface CaseWriteDeps {
  reserve: Database.Statement<[StoredMessage]>;
  enqueue: Database.Statement<[NotifyDelivery]>;
  releaseClaim: Database.Statement<[string, string]>;
  addHistory: AddHistory;
  kv: KvWrites;
}

/** listOpenOnPlatform's named parameters. */
interface OnPlatformParams {
  platform: string;
  service: string | null;
  http: string;
  https: string;
  type: string | null;
  /** 0: any policy, 1: none, 2: the one named `policy`. */
  pmode: 0 | 1 | 2;
  policy: string | null;
  at: number;
  id: string;
  n: number;
}

function caseStatements(db: Database.Database) {
  return {
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
    // Keyset paging over one chat's cards (index messages_chat), newest case first.
    inChat: db.prepare<[string, string, number, number, string, number], CaseRow>(
      `SELECT c.* FROM messages m JOIN cases c ON c.id = m.case_id
      WHERE m.platform = ? AND m.address = ? AND c.status NOT IN ${TERMINAL}
        AND (c.created_at < ? OR (c.created_at = ? AND c.id < ?))
      ORDER BY c.created_at DESC, c.id DESC LIMIT ?`,
    ),
    // The inbox's filters are in the read (the LIMIT counts matching cases only): a service is the
    // host of its origin (origins are URL origins: scheme://host), a type is the doc's hitl.type.
    onPlatform: db.prepare<[OnPlatformParams], CaseRow>(
      `SELECT c.* FROM cases c WHERE c.status NOT IN ${TERMINAL}
        AND EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id AND m.platform = @platform)
        AND (@service IS NULL OR c.origin IN (@http, @https))
        AND (@type IS NULL OR json_extract(c.doc, '$.hitl.type') = @type)
        AND (@pmode = 0 OR (@pmode = 1 AND json_extract(c.doc, '$.policy.name') IS NULL)
          OR (@pmode = 2 AND json_extract(c.doc, '$.policy.name') = @policy))
        AND (c.created_at < @at OR (c.created_at = @at AND c.id < @id))
      ORDER BY c.created_at DESC, c.id DESC LIMIT @n`,
    ),
    listAll: db.prepare<[number, number], CaseRow>(
      'SELECT * FROM cases ORDER BY created_at DESC LIMIT ? OFFSET ?',
    ),
    // The claim is not written here (claims have their own statements).
    update: db.prepare(`UPDATE cases SET status = @status, version = @version, doc = @doc,
      secrets = @secrets, next_check_at = @next_check_at, etag = @etag, poll_failures = @poll_failures,
      updated_at = @updated_at WHERE id = @id AND version = @expected`),
    orphans: db.prepare<
      [number, number],
      CaseRow
    >(`SELECT * FROM cases c WHERE c.status NOT IN ${TERMINAL}
      AND c.created_at < ? AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id) LIMIT ?`),
  };
}
type CaseStatements = ReturnType<typeof caseStatements>;

/** The case, its message reservations, first history row and posting leases: one commit. */
function createTransaction(db: Database.Database, q: CaseStatements, deps: CaseWriteDeps) {
  const addFirst = firstHistoryWriter(db);
  return db.transaction(
    (
      c: StoredCase,
      messages: StoredMessage[],
      history: HistoryEntry | undefined,
      leases: KvWrite[],
    ) => {
      if (q.insert.run(caseParams(c)).changes !== 1) return false;
      for (const m of messages) deps.reserve.run(m);
      if (history) addFirst(c.id, history); // the case is new: nothing to cap yet
      for (const l of leases) deps.kv.set.run(l.key, l.value, l.until);
      return true;
    },
  );
}

/** The compare-and-set change, its outbox deliveries, history rows and claim release: one commit. */
function updateTransaction(db: Database.Database, q: CaseStatements, deps: CaseWriteDeps) {
  return db.transaction(
    (c: StoredCase, expected: number, outbox: NotifyDelivery[] = [], step: StepWrites = {}) => {
      const { claim_holder: _h, claim_until: _u, ...params } = caseParams(c);
      if (q.update.run({ ...params, expected }).changes !== 1) return false;
      for (const d of outbox) deps.enqueue.run(d);
      for (const h of step.history ?? []) deps.addHistory(c.id, h);
      if (step.releaseClaim) deps.releaseClaim.run(c.id, step.releaseClaim);
      return true;
    },
  );
}

export function sqliteCases(
  db: Database.Database,
  deps: CaseWriteDeps,
): Omit<CaseRows, 'countByStatus' | 'openStats'> {
  const q = caseStatements(db);
  const createTx = createTransaction(db, q, deps);
  const updateTx = updateTransaction(db, q, deps);
  const maybe = (r: CaseRow | undefined) => r && toCase(r);
  return {
    async createCase(c, intents) {
      const created = createTx(c, intents?.messages ?? [], intents?.history, intents?.leases ?? []);
      // The inserted row is `c` itself (no JSON round trip); only another intake's case is read.
      if (created) return { case: c, created };
      return { case: toCase(q.byCase.get(c.origin, c.case_id)!), created };
    },
    getCase: async (id) => maybe(q.byId.get(id)),
    getCaseByKey: async (key) => maybe(q.byKey.get(key)),
    findCase: async (origin, caseId) => maybe(q.byCase.get(origin, caseId)),
    async listCases({ open, limit, offset = 0 }) {
      return (open ? q.listOpen : q.listAll).all(limit, offset).map(toCase);
    },
    async listOpenInChat({ platform, address, limit, before }) {
      const at = before?.created_at ?? Number.MAX_SAFE_INTEGER;
      const id = before?.id ?? '\uffff';
      const n = Math.min(100, Math.max(1, limit));
      return q.inChat.all(platform, address, at, at, id, n).map(toCase);
    },
    async listOpenOnPlatform({ platform, limit, before, service, type, policy }) {
      return q.onPlatform
        .all({
          platform,
          service: service ?? null,
          http: `http://${service}`,
          https: `https://${service}`,
          type: type ?? null,
          pmode: policy === undefined ? 0 : policy === null ? 1 : 2,
          policy: policy ?? null,
          at: before?.created_at ?? Number.MAX_SAFE_INTEGER,
          id: before?.id ?? '\uffff',
          n: Math.min(100, Math.max(1, limit)),
        })
        .map(toCase);
    },
    async updateCase(c, expected, outbox, step) {
      return updateTx(c, expected, outbox, step);
    },
    async orphanCases(before, limit) {
      return q.orphans.all(before, limit).map(toCase);
    },
  };
}

/** What /metrics counts. */
export function sqliteCaseStats(
  db: Database.Database,
): Pick<CaseRows, 'countByStatus' | 'openStats'> {
  const counts = db.prepare<[], { status: string; n: number }>(
    'SELECT status, count(*) AS n FROM cases GROUP BY status',
  );
  const open = db.prepare<[], { open: number; oldest: number | null; undelivered: number | null }>(
    `SELECT count(*) AS open, min(created_at) AS oldest,
      sum(CASE WHEN EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id AND m.state = 'posted')
        THEN 0 ELSE 1 END) AS undelivered
      FROM cases c WHERE status NOT IN ${TERMINAL}`,
  );
  return {
    async countByStatus() {
      return Object.fromEntries(counts.all().map((r) => [r.status, r.n]));
    },
    async openStats() {
      const r = open.get();
      return {
        open: r?.open ?? 0,
        oldestCreatedAt: r?.oldest ?? null,
        undelivered: r?.undelivered ?? 0,
      };
    },
  };
}
