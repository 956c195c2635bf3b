/**
 * Answers sealed at rest (issue 32 item 5): the sealing store writes a case's result data, the
 * events that carry it and respond bodies sealed, and reads them back as they were. The rows
 * themselves are read from the SQLite file, as a copy of it would show them.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { sealedAnswers } from '../../src/hitl-service/sealed-store.ts';
import { SqliteServiceStore } from '../../src/hitl-service/service-store.ts';
import type { ReviewCase } from '../../src/hitl-service/types.ts';
import { createTextSealer } from '../../src/store/sealer.ts';
import { tempDirs } from '../helpers/temp.ts';

const temp = tempDirs();
const SECRET = 'correct-horse-battery-staple';
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const kase: ReviewCase = {
  case_id: 'review_sealed1',
  type: 'input',
  status: 'pending',
  prompt: 'p',
  message: 'm',
  timeout: '1h',
  default_action: 'skip',
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2099-01-01T00:00:00.000Z',
  context: {},
  callback_url: null,
  inline: true,
  reminders_done: 0,
};

it('ASK-SECRET-5: result data, its events and respond bodies are sealed in the rows, open when read', async () => {
  const file = join(temp.make('sealed-store-'), 'asks.sqlite');
  const store = sealedAnswers(
    new SqliteServiceStore(file),
    createTextSealer('a-test-secret-key-of-enough-length', 'ask-answers v1'),
  );
  close = () => store.close();
  await store.insert(kase, Buffer.alloc(32), null);
  const result = { action: 'submit', data: { values: { password: SECRET } } };
  const done: ReviewCase = { ...kase, status: 'completed', completed_at: kase.created_at, result };
  const written = await store.commit(done, 1, [{ event: 'review.completed', data: { result } }]);
  expect(written?.[0]?.data).toEqual({ result });
  await store.addSubmission({
    case_id: kase.case_id,
    method: 'POST',
    auth: 'bearer',
    bearer_valid: true,
    body: { action: 'submit', data: result.data },
    status: 200,
    at: kase.created_at,
  });
  // Read back as written.
  expect((await store.get(kase.case_id))?.kase.result).toEqual(result);
  expect((await store.eventsAfter(kase.case_id, 0))[0]?.data).toEqual({ result });
  expect((await store.submissions())[0]?.body).toEqual({ action: 'submit', data: result.data });
  // The rows hold the action, never the answer.
  const db = new Database(file, { readonly: true });
  try {
    const rows = [
      ...db.prepare('SELECT data FROM asks_cases').all(),
      ...db.prepare('SELECT data FROM asks_events').all(),
      ...db.prepare('SELECT data FROM asks_submissions').all(),
    ].map((r) => String((r as { data: string }).data));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).not.toContain(SECRET);
    expect(rows[0]).toContain('"action":"submit"');
  } finally {
    db.close();
  }
});
