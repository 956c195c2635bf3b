/** SQLite: the message slot of each (case, target) and its delivery state. */
import type Database from 'better-sqlite3';
import type { MessageRows } from '../store.ts';
import type { HistoryEntry, StoredMessage } from '../types.ts';
import type { AddHistory } from './history.ts';
import type { KvWrites } from './kv.ts';

type MessageStep = { history?: HistoryEntry[]; releaseLease?: string; leaseOwner?: string };

/** The reservation insert (intake writes it in the case's transaction). */
export function reserveStatement(db: Database.Database): Database.Statement<[StoredMessage]> {
  return db.prepare(`INSERT INTO messages (case_id, target, platform, address, ref_id, state, rendered_version,
    error, posted_at) VALUES (@case_id, @target, @platform, @address, @ref_id, @state, @rendered_version, @error,
    @posted_at) ON CONFLICT DO NOTHING`);
}

function messageStatements(db: Database.Database) {
  return {
    update: db.prepare<[StoredMessage]>(`UPDATE messages SET ref_id = @ref_id, state = @state,
      rendered_version = @rendered_version, error = @error, posted_at = @posted_at
      WHERE case_id = @case_id AND target = @target`),
    list: db.prepare<[string], StoredMessage>(
      'SELECT * FROM messages WHERE case_id = ? ORDER BY rowid',
    ),
    byRef: db.prepare<[string, string], StoredMessage>(
      'SELECT * FROM messages WHERE platform = ? AND ref_id = ?',
    ),
    stale: db.prepare<
      [number],
      StoredMessage
    >(`SELECT m.* FROM messages m JOIN cases c ON c.id = m.case_id
      WHERE m.state = 'posting' OR (m.state = 'posted' AND m.rendered_version < c.version) LIMIT ?`),
  };
}

export function sqliteMessages(
  db: Database.Database,
  deps: { reserve: Database.Statement<[StoredMessage]>; addHistory: AddHistory; kv: KvWrites },
): MessageRows {
  const q = messageStatements(db);
  // The outcome of a post, its history rows and the release of its posting lease: one commit.
  const updateTx = db.transaction((m: StoredMessage, step: MessageStep) => {
    q.update.run(m);
    for (const h of step.history ?? []) deps.addHistory(m.case_id, h);
    if (step.releaseLease && step.leaseOwner)
      deps.kv.releaseOwn.run(step.releaseLease, step.leaseOwner);
  });
  return {
    async reserveMessage(m) {
      return deps.reserve.run(m).changes === 1;
    },
    async updateMessage(m, step) {
      if (step) updateTx(m, step);
      else q.update.run(m);
    },
    async listMessages(caseId) {
      return q.list.all(caseId);
    },
    async findMessageByRef(platform, refId) {
      return q.byRef.get(platform, refId);
    },
    async staleMessages(limit) {
      return q.stale.all(limit);
    },
  };
}
