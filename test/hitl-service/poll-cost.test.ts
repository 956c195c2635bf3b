/**
 * What a poll costs the service (issue 22, bench:asks): a poll answered 304 reads the case's version
 * and due moment only, never its data, and writes nothing; yet a client holding the current ETag
 * still sees an expiry or a reminder that fell due since (the full path applies it: 200, new tag).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceStore, SqliteServiceStore } from '../../src/hitl-service/service-store.ts';
import {
  act,
  createCase,
  type DemoServer,
  manualClock,
  poll,
  startDemoServer,
} from '../demo/helpers.ts';

const clock = manualClock();
const calls = new Map<string, number>();
/** The real store, counting calls by method name. */
const counted = new Proxy(new SqliteServiceStore(':memory:'), {
  get(target, name, receiver) {
    const value = Reflect.get(target, name, receiver);
    if (typeof value !== 'function') return value;
    return (...args: unknown[]) => {
      calls.set(String(name), (calls.get(String(name)) ?? 0) + 1);
      return value.apply(target, args);
    };
  },
}) as ServiceStore;

let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer({ now: clock.now, store: counted, pollRetryAfterSeconds: 7 });
});
afterAll(() => server.close());

/** Calls by method while `fn` runs (the scheduler's own reads are left out unless `all`). */
async function counting(fn: () => Promise<void>, all = false): Promise<Record<string, number>> {
  calls.clear();
  await fn();
  const seen = Object.fromEntries(calls);
  if (all) return seen;
  delete seen.nextDue;
  delete seen.dueCases;
  return seen;
}

describe('poll cost', () => {
  it('a new case is one store call: the scheduler learns its due moment without a read', async () => {
    // In-process, so no timer can fire between the insert and the count (all microtasks).
    const spec = {
      type: 'approval',
      inline: true,
      prompt: 'Approve the deploy',
      message: 'A deploy waits for you.',
      context: {},
      expiresInSeconds: 600,
      callback_url: null,
    };
    const seen = await counting(
      async () => void (await server.demo.create(spec, server.base)),
      true,
    );
    expect(seen).toEqual({ insert: 1 });
  });

  it('answers 304 from the version alone: no case read, no write', async () => {
    const { hitl } = await createCase(server.base, 'approval', true, { expires_in_seconds: 600 });
    const first = await poll(hitl.poll_url);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    const seen = await counting(async () => {
      for (let i = 0; i < 5; i++) {
        const again = await poll(hitl.poll_url, { 'if-none-match': etag });
        expect(again.status).toBe(304);
        expect(again.headers.get('etag')).toBe(etag);
        expect(again.headers.get('retry-after')).toBe('7');
      }
    });
    expect(seen).toEqual({ stateOf: 5 });
    // Without If-None-Match (or with another tag) the body is read, as before.
    expect(await counting(async () => void (await poll(hitl.poll_url)))).toEqual({ get: 1 });
  });

  it('a final case answers 304 without Retry-After', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    await act(server.base, hitl.case_id, { step: 'cancel', reason: 'not needed' });
    const etag = (await poll(hitl.poll_url)).headers.get('etag')!;
    const again = await poll(hitl.poll_url, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('retry-after')).toBeNull();
  });

  it('an expiry due since the last poll is applied, even for the current ETag', async () => {
    const { hitl } = await createCase(server.base, 'approval', true, { expires_in_seconds: 60 });
    const etag = (await poll(hitl.poll_url)).headers.get('etag')!;
    clock.advance(61_000);
    const after = await poll(hitl.poll_url, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.json?.status).toBe('expired');
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('a reminder due since the last poll is applied, even for the current ETag', async () => {
    const at = new Date(clock.now() + 30_000).toISOString();
    const { hitl } = await createCase(server.base, 'approval', true, {
      expires_in_seconds: 3600,
      reminder_at: at,
    });
    const etag = (await poll(hitl.poll_url)).headers.get('etag')!;
    clock.advance(31_000);
    const after = await poll(hitl.poll_url, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.json?.reminder_sent_at).toBeDefined();
    expect(after.headers.get('etag')).not.toBe(etag);
  });
});
