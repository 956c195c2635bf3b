/**
 * The relay's asks service is given the relay's retention period (issue 18): a final ask stored in
 * DATA_DIR/asks.sqlite longer ago than RETENTION_DAYS is gone after the service's pass; without a
 * period it is kept. Dialects, batching and the clock are covered in test/hitl-service/retention.test.ts.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { mountAsks } from '../../src/asks-service/service.ts';
import { SqliteServiceStore } from '../../src/hitl-service/service-store.ts';
import type { ReviewCase } from '../../src/hitl-service/types.ts';
import { createLogger } from '../../src/log.ts';
import { tempDirs } from '../helpers/temp.ts';

const temp = tempDirs();

const DAY = 86_400_000;

/** A data dir whose asks.sqlite holds one ask that ended 40 days ago and one still open. */
async function dataDirWithAsks(): Promise<string> {
  const dir = temp.make('hitl-asks-ret-');
  const store = new SqliteServiceStore(join(dir, 'asks.sqlite'));
  const iso = (ms: number) => new Date(ms).toISOString();
  const ask = (id: string, extra: Partial<ReviewCase>) =>
    ({ case_id: id, expires_at: iso(Date.now() + DAY), reminders_done: 0, ...extra }) as ReviewCase;
  await store.insert(
    ask('ended', { status: 'completed', completed_at: iso(Date.now() - 40 * DAY) }),
    Buffer.alloc(32),
    null,
  );
  await store.insert(ask('open', { status: 'pending' }), Buffer.alloc(32), null);
  await store.close();
  return dir;
}

const idsIn = (dir: string) => {
  const db = new Database(join(dir, 'asks.sqlite'), { readonly: true });
  const ids = db.prepare('SELECT case_id FROM asks_cases ORDER BY case_id').pluck().all();
  db.close();
  return ids;
};

describe('the asks service keeps asks for the relay retention period', () => {
  it('with RETENTION_DAYS=30 an ask final for 40 days goes; the open one stays', async () => {
    const dir = await dataDirWithAsks();
    const log = createLogger({ level: 'silent' });
    const service = mountAsks(new Hono(), { dataDir: dir, log, retentionMs: 30 * DAY });
    // The pass the service started on its own, or one more: either way nothing is due after it.
    await service.purge();
    await service.close();
    expect(idsIn(dir)).toEqual(['open']);
  });

  it('with RETENTION_DAYS=0 everything is kept', async () => {
    const dir = await dataDirWithAsks();
    const log = createLogger({ level: 'silent' });
    const service = mountAsks(new Hono(), { dataDir: dir, log, retentionMs: 0 });
    expect(await service.purge()).toEqual({ cases: 0, submissions: 0 });
    await service.close();
    expect(idsIn(dir)).toEqual(['ended', 'open']);
  });
});
