/**
 * Retry-After end to end (spec 8) and the terminal guard where it is used. A spec double answers
 * the relay's real watcher over loopback; the relay's clock is the test's and its own loop stays
 * idle, so each pass is one tick() the test makes: no sleeping, no timing assertions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { parse202Body } from '../../src/protocol/hitl.ts';
import { parsePollResponse } from '../../src/protocol/status.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import { Watcher } from '../../src/watch/watcher.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';

let clock = Date.now();
let double: SpecDouble;
let relay: Relay;
let watcher: Watcher;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-retry-after-'));

beforeAll(async () => {
  double = await startSpecDouble();
  relay = createRelay({
    // The default poll interval (30 s to 5 min): Retry-After below is longer than a backoff step.
    config: readConfig({ PORT: '0', DATA_DIR: dataDir, DEMO: '0' }),
    adapters: [createWebAdapter()],
    log: createLogger({ level: 'silent' }),
    now: () => clock,
    watcher: { tickMs: 2 ** 31 - 1 },
  });
  await relay.start();
  watcher = new Watcher(relay.services, { tickMs: 2 ** 31 - 1 });
});
afterAll(async () => {
  await relay?.stop();
  await double?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A case of the double taken in, polled by nobody yet. */
async function watched() {
  const body = double.create({ events: false, expiresInMs: 7 * 86_400_000 });
  const { case: c } = await relay.services.intake.ingest({
    target: 'web:retry',
    hitl: parse202Body(body).hitl,
  });
  return { id: c.id, caseId: body.hitl.case_id as string };
}

/** One watcher pass at the current clock, and its polls finished. */
async function pass(): Promise<number> {
  const n = await watcher.tick();
  await watcher.idle();
  return n;
}

const stored = async (id: string) => (await relay.services.store.getCase(id))!;

describe('Retry-After end to end', () => {
  it("RETRY-1 the watcher polls a 429's and a 503's case no earlier than their Retry-After", async () => {
    const c = await watched();
    // The first look is due pollMinMs after intake; every pass from here is this test's tick.
    clock = (await stored(c.id)).next_check_at!;
    const start = double.seen('poll', c.caseId).length;
    double.queuePoll(c.caseId, {
      status: 429,
      headers: { 'retry-after': '120' },
      body: { error: 'rate_limited' },
    });
    const polls = () => double.seen('poll', c.caseId).length - start;

    await pass();
    expect(polls()).toBe(1);
    const t1 = clock;
    const after429 = await stored(c.id);
    expect(after429.doc.watch?.state).toBe('rate_limited');
    expect(after429.next_check_at).toBeGreaterThanOrEqual(t1 + 120_000);

    // A moment before the time the service named: the pass starts nothing.
    clock = after429.next_check_at! - 1;
    expect(await pass()).toBe(0);
    expect(polls()).toBe(1);

    // The second answer: 503 with Retry-After as an HTTP date, read on the relay's clock.
    clock = after429.next_check_at!;
    const t2 = clock;
    double.queuePoll(c.caseId, {
      status: 503,
      headers: { 'retry-after': new Date(t2 + 300_000).toUTCString() },
      body: { error: 'unavailable' },
    });
    expect(await pass()).toBe(1);
    expect(polls()).toBe(2);
    const after503 = await stored(c.id);
    expect(after503.doc.watch?.state).toBe('failing');
    // The HTTP date has second precision: at most 1 s early on the clock the relay was given.
    expect(after503.next_check_at).toBeGreaterThanOrEqual(t2 + 299_000);

    clock = after503.next_check_at! - 1;
    expect(await pass()).toBe(0);
    expect(polls()).toBe(2);

    // Then the service answers again: the watch is healthy, and the case is as the service says.
    clock = after503.next_check_at!;
    expect(await pass()).toBe(1);
    expect(polls()).toBe(3);
    const healthy = await stored(c.id);
    expect(healthy.doc.watch?.state).toBe('ok');
    expect(healthy.status).toBe('pending');
  });
});

describe('nothing leaves a terminal state, where the guard is used', () => {
  it('STATE-3 a completed case given a later poll body saying pending stays completed', async () => {
    const c = await watched();
    double.complete(c.caseId, 'approve', { data: { note: 'done' } });
    clock = (await stored(c.id)).next_check_at!;
    await pass();
    const done = await stored(c.id);
    expect(done.status).toBe('completed');
    const history = (await relay.services.store.listHistory(c.id)).length;
    // A poll that was in flight before the answer (another replica's, say) arrives late.
    const late = parsePollResponse({
      status: 'pending',
      case_id: c.caseId,
      created_at: new Date(clock - 5_000).toISOString(),
      expires_at: new Date(clock + 86_400_000).toISOString(),
    });
    await relay.services.status.apply(c.id, late, 'poll');
    const after = await stored(c.id);
    expect(after.status).toBe('completed');
    expect(after.doc.result).toEqual(done.doc.result);
    expect(after.next_check_at).toBeNull();
    const rows = await relay.services.store.listHistory(c.id);
    expect(rows.slice(history).filter((h) => h.kind === 'status')).toEqual([]);
  });
});
