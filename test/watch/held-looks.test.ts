/**
 * A lease holds a case for ten minimum intervals; a held case unchanged since a quiet look is polled
 * from its row (no document read, nothing written while the service answers 304). What the service
 * says on such a look is still taken in full: a completion is applied and confirmed, a failure is
 * shown at once, and either ends the hold. The agent's credentials go with every look. Against the
 * scriptable spec double over real HTTP; a real relay on SQLite; the clock is the test's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse202Body } from '../../src/protocol/hitl.ts';
import type { Relay } from '../../src/relay.ts';
import type { Watcher } from '../../src/watch/watcher.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import type { CountedStore } from '../helpers/store-counter.ts';
import { startWatchRig } from '../helpers/watch-rig.ts';

const MIN_MS = 60_000;
const AUTH = 'Bearer agent-credential';
let clock = Date.now();
let double: SpecDouble;
let relay: Relay;
let counted: CountedStore;
let watcher: Watcher;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-held-looks-'));

beforeAll(async () => {
  double = await startSpecDouble();
  double.requireAuth(AUTH);
  ({ relay, counted, watcher } = await startWatchRig({ dataDir, minMs: MIN_MS, now: () => clock }));
});
afterAll(async () => {
  await relay?.stop();
  await double?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A case taken in and looked at twice (a 200, then a 304): held, and polled from its row next. */
async function heldCase(): Promise<{ id: string; caseId: string }> {
  const body = double.create({ events: false, expiresInMs: 48 * 3_600_000 });
  const r = await relay.services.intake.ingest({
    target: 'web:held',
    hitl: parse202Body(body).hitl,
    service_headers: { authorization: AUTH },
  });
  await pass(MIN_MS); // 200: written, the lease goes
  await pass(2 * MIN_MS); // 304: held
  const c = (await relay.services.store.getCase(r.case.id))!;
  expect(c.next_check_at).toBeGreaterThan(clock + 5 * MIN_MS); // the hold's end
  return { id: r.case.id, caseId: r.case.case_id };
}

/** Moves the clock by `ms` and runs one pass until its polls have finished. */
async function pass(ms: number): Promise<void> {
  clock += ms;
  await watcher.tick();
  await watcher.idle();
}

const methods = () => [...new Set(counted.calls.map((c) => c.method))].sort();

it('a row-only look answered 304 reads no document and writes nothing, and carries the credentials', async () => {
  const { caseId } = await heldCase();
  const polls = double.seen('poll', caseId).length;
  counted.reset();
  await pass(2 * MIN_MS);
  expect(double.seen('poll', caseId)).toHaveLength(polls + 1);
  expect(double.seen('poll', caseId).at(-1)!.headers.authorization).toBe(AUTH);
  expect(methods()).toEqual(['heldCases', 'leaseDue']);
});

it('a completion seen on a row-only look is applied and confirmed, and ends the hold', async () => {
  const { id, caseId } = await heldCase();
  double.complete(caseId, 'approve', { by: { name: 'Ada' } });
  await pass(2 * MIN_MS);
  const c = (await relay.services.store.getCase(id))!;
  expect(c.status).toBe('completed');
  expect(c.next_check_at).toBeNull();
  const history = await relay.services.store.listHistory(id);
  expect(history.filter((h) => h.kind === 'status').at(-1)!.detail).toMatchObject({
    to: 'completed',
    source: 'poll',
    action: 'approve',
  });
});

it('a failure on a row-only look is shown at once and scheduled with backoff; the hold ends', async () => {
  const { id, caseId } = await heldCase();
  double.queuePoll(caseId, { status: 503, body: 'down' });
  await pass(2 * MIN_MS);
  const c = (await relay.services.store.getCase(id))!;
  expect(c.doc.watch).toMatchObject({ state: 'failing' });
  expect(c.poll_failures).toBe(1);
  // Written to the store (the hold ended): due after the backoff, for any replica.
  expect(c.next_check_at).toBeGreaterThanOrEqual(clock + 2 * MIN_MS);
  expect(c.next_check_at).toBeLessThan(clock + 5 * MIN_MS);
  // The next good look clears the failure (a full look: the case changed).
  await pass(3 * MIN_MS);
  expect((await relay.services.store.getCase(id))!.doc.watch).toMatchObject({ state: 'ok' });
});
