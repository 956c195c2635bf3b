/**
 * Back-off under service faults, read from the schedule the watcher stores (a clock the test
 * moves, so nothing here depends on timing): each failed poll doubles the wait from
 * POLL_INTERVAL_MIN up to POLL_INTERVAL_MAX, Retry-After stretches it (even past the maximum: the
 * relay never polls before the time the service asked for), and one good answer brings the
 * schedule back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { parse202Body } from '../../src/protocol/hitl.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import { Watcher } from '../../src/watch/watcher.ts';
import { type DemoHandle, startDemo } from '../helpers/relay-env.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';

const MIN = 1000;
const MAX = 300_000;
let clock = Date.now();
let demo: DemoHandle;
let svc: HostileService;
let relay: Relay;
let watcher: Watcher;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-backoff-'));

beforeAll(async () => {
  demo = await startDemo({ pollRetryAfterSeconds: 30 });
  svc = await startHostileService();
  relay = createRelay({
    config: readConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      DEMO: '0',
      POLL_INTERVAL_MIN_SECONDS: String(MIN / 1000),
      POLL_INTERVAL_MAX_SECONDS: String(MAX / 1000),
    }),
    adapters: [createWebAdapter()],
    log: createLogger({ level: 'silent' }),
    now: () => clock,
    // The relay's own loop stays idle; the test runs each look itself.
    watcher: { tickMs: 2 ** 31 - 1 },
  });
  await relay.start();
  watcher = new Watcher(relay.services);
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function ingest(body: Record<string, any>): Promise<string> {
  delete body.hitl.events_url;
  const parsed = parse202Body(body);
  const r = await relay.services.intake.ingest({ target: 'web:backoff', hitl: parsed.hitl });
  return r.case.id;
}

/** One look at the case; returns the failures count and the wait until the next look. */
async function look(id: string): Promise<{ failures: number; wait: number; status: string }> {
  await watcher.check((await relay.services.store.getCase(id))!);
  const c = (await relay.services.store.getCase(id))!;
  return { failures: c.poll_failures, wait: (c.next_check_at ?? 0) - clock, status: c.status };
}

/** Within the scheduler's jitter of `ms` (it only lengthens, by up to 20 %). */
function near(ms: number): { asymmetricMatch(v: number): boolean; toString(): string } {
  return {
    asymmetricMatch: (v) => v >= ms - 1 && v <= ms * 1.2 + 1,
    toString: () => `~${ms}`,
  };
}

describe('back-off on poll faults of the demo service', () => {
  it('doubles the wait per failure, whatever the fault, up to the maximum; recovers on a good answer', async () => {
    const response = await demo.create('approval', true);
    const id = await ingest(response);
    const kinds = [
      '500',
      '503',
      'malformed_json',
      'wrong_content_type',
      'truncated',
      'reset',
      '429',
      '429_no_retry_after',
      '500',
      '500',
    ];
    for (const [i, kind] of kinds.entries()) {
      await demo.fault({ route: 'status', kind, count: 1 });
      const r = await look(id);
      const k = i + 1;
      expect({ kind, ...r }).toEqual({
        kind,
        failures: k,
        wait: near(Math.min(MAX, MIN * 2 ** k)),
        status: 'pending',
      });
      clock += r.wait;
    }
    // The service is back: its answer carries Retry-After: 30, which the relay honours.
    const ok = await look(id);
    expect(ok).toEqual({ failures: 0, wait: near(30_000), status: 'pending' });
  });
});

describe('Retry-After on failures', () => {
  it('a Retry-After longer than the back-off is honoured, even one past the maximum', async () => {
    const id = await ingest(svc.body202());
    const answers = [
      { status: 503, retryAfter: '120', expected: 120_000 },
      { status: 429, retryAfter: '3600', expected: 3_600_000 },
      {
        status: 429,
        retryAfter: new Date(clock + 90_000).toUTCString(),
        // An HTTP date has whole seconds: the wait is up to the second the service named.
        expected: Date.parse(new Date(clock + 90_000).toUTCString()) - clock,
      },
      { status: 429, retryAfter: 'soon', expected: MIN * 2 ** 4 },
    ];
    for (const [i, a] of answers.entries()) {
      svc.handle((req, res) => {
        if (req.method !== 'GET') return false;
        res.writeHead(a.status, {
          'retry-after': a.retryAfter,
          'content-type': 'application/json',
        });
        res.end('{"error":"rate_limited"}');
        return true;
      });
      const r = await look(id);
      expect(r.failures).toBe(i + 1);
      // An HTTP date is read against the relay's clock (the test's), to the second.
      expect(r.wait).toEqual(near(Math.max(a.expected, MIN * 2 ** (i + 1))));
    }
    svc.handle(null);
    expect(await look(id)).toEqual({ failures: 0, wait: near(MIN), status: 'pending' });
  });
});
