/** The notify outbox part of the Store contract (runStoreContract calls it for SQLite and PostgreSQL). */
import { expect, it } from 'vitest';
import type { NotifyDelivery, Store } from '../../src/store/store.ts';
import type { StoredCase } from '../../src/store/types.ts';

let seq = 0;
/** A pending delivery for `caseId`, due at `at`. */
export function sampleDelivery(
  caseId: string,
  event: string,
  at: number,
  over: Partial<NotifyDelivery> = {},
): NotifyDelivery {
  seq++;
  return {
    id: `nd_${seq}_${Math.random().toString(36).slice(2, 8)}`,
    case_id: caseId,
    event,
    url: 'https://agent.example/hooks/hitl',
    body: JSON.stringify({ id: caseId, status: event }),
    state: 'pending',
    attempts: 0,
    next_attempt_at: at,
    last_error: null,
    created_at: at,
    delivered_at: null,
    ...over,
  };
}

/** Registers the outbox tests; `ctx` gives the current store, its clock, and a sample case. */
export function outboxContract(ctx: {
  store: () => Store;
  now: () => number;
  setNow: (t: number) => void;
  sampleCase: (over?: Partial<StoredCase>) => StoredCase;
}): void {
  it('outbox: queues one delivery per (case, event)', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    await store.createCase(a);
    const first = sampleDelivery(a.id, 'completed', ctx.now());
    expect(await store.enqueueDelivery(first)).toBe(true);
    expect(await store.enqueueDelivery(sampleDelivery(a.id, 'completed', ctx.now()))).toBe(false);
    expect(await store.enqueueDelivery(sampleDelivery(a.id, 'opened', ctx.now()))).toBe(true);
    const listed = await store.listDeliveries(a.id);
    expect(listed.map((d) => d.event).sort()).toEqual(['completed', 'opened']);
    expect(listed.find((d) => d.event === 'completed')).toEqual(first);
  });

  it('outbox: a delivery queued with a status write lands only when the write does', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    await store.createCase(a);
    const lost = sampleDelivery(a.id, 'completed', ctx.now());
    expect(await store.updateCase({ ...a, version: 2, status: 'completed' }, 7, [lost])).toBe(
      false,
    );
    expect(await store.listDeliveries(a.id)).toEqual([]);
    const won = sampleDelivery(a.id, 'completed', ctx.now());
    const again = sampleDelivery(a.id, 'completed', ctx.now());
    expect(await store.updateCase({ ...a, version: 2, status: 'completed' }, 1, [won])).toBe(true);
    expect((await store.getCase(a.id))!.status).toBe('completed');
    // A repeat for the same event is ignored, and the case write still succeeds.
    expect(await store.updateCase({ ...a, version: 3, status: 'completed' }, 2, [again])).toBe(
      true,
    );
    expect((await store.listDeliveries(a.id)).map((d) => d.id)).toEqual([won.id]);
  });

  it('outbox: leases due deliveries once across owners, counting attempts', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    await store.createCase(a);
    const due = Array.from({ length: 6 }, (_, i) =>
      sampleDelivery(a.id, `e${i}`, ctx.now() - 100 + i),
    );
    const later = sampleDelivery(a.id, 'later', ctx.now() + 50_000);
    for (const d of [...due, later]) await store.enqueueDelivery(d);
    const leased = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.leaseDeliveries(ctx.now(), 3, `r${i}`, 1000)),
    );
    const ids = leased.flat().map((d) => d.id);
    expect(ids.sort()).toEqual(due.map((d) => d.id).sort());
    expect(leased.flat().every((d) => d.attempts === 1)).toBe(true);
    expect(await store.leaseDeliveries(ctx.now(), 10, 'again', 1000)).toEqual([]);
    // A dead owner's lease lapses and the work comes back, with the crashed attempt counted.
    ctx.setNow(ctx.now() + 1500);
    const back = await store.leaseDeliveries(ctx.now(), 10, 'r9', 1000);
    expect(back.map((d) => d.id).sort()).toEqual(due.map((d) => d.id).sort());
    expect(back.every((d) => d.attempts === 2)).toBe(true);
    expect(back.map((d) => d.next_attempt_at)).toEqual(due.map((d) => d.next_attempt_at));
  });

  it('finding 5 (slow service starves others): a lease given back untried does not count as an attempt', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    await store.createCase(a);
    const d = sampleDelivery(a.id, 'completed', ctx.now() - 10);
    await store.enqueueDelivery(d);
    const [first] = await store.leaseDeliveries(ctx.now(), 1, 'r1', 1000);
    expect(first!.attempts).toBe(1);
    await store.settleDelivery(d.id, 'r1', {
      state: 'pending',
      next_attempt_at: ctx.now() + 5,
      error: 'HTTP 503',
    });
    ctx.setNow(ctx.now() + 10);
    const [second] = await store.leaseDeliveries(ctx.now(), 1, 'r1', 1000);
    expect(second!.attempts).toBe(2);
    await store.settleDelivery(d.id, 'r1', {
      state: 'pending',
      next_attempt_at: ctx.now() + 5,
      error: 'deferred: busy receiver',
      notAttempted: true,
    });
    const [row] = await store.listDeliveries(a.id);
    expect(row).toMatchObject({ attempts: 1, last_error: 'HTTP 503', state: 'pending' });
  });

  it('outbox: settles attempts: retry later, deliver, give up; a stale owner cannot undo', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    await store.createCase(a);
    const d = sampleDelivery(a.id, 'completed', ctx.now());
    const g = sampleDelivery(a.id, 'expired', ctx.now());
    await store.enqueueDelivery(d);
    await store.enqueueDelivery(g);
    await store.leaseDeliveries(ctx.now(), 10, 'one', 1000);
    await store.settleDelivery(d.id, 'one', {
      state: 'pending',
      next_attempt_at: ctx.now() + 5000,
      error: 'HTTP 503',
    });
    await store.settleDelivery(g.id, 'one', { state: 'failed', error: 'refused by policy' });
    expect(await store.leaseDeliveries(ctx.now(), 10, 'two', 1000)).toEqual([]);
    ctx.setNow(ctx.now() + 5000);
    const [retry] = await store.leaseDeliveries(ctx.now(), 10, 'two', 1000);
    expect(retry).toMatchObject({ id: d.id, attempts: 2, last_error: 'HTTP 503' });
    // "one" lost its lease long ago: its late failure report must not touch the delivery.
    await store.settleDelivery(d.id, 'one', { state: 'failed', error: 'late' });
    await store.settleDelivery(d.id, 'two', { state: 'delivered', at: ctx.now() });
    await store.settleDelivery(d.id, 'two', { state: 'failed', error: 'after delivery' });
    const byId = Object.fromEntries((await store.listDeliveries(a.id)).map((x) => [x.id, x]));
    expect(byId[d.id]).toMatchObject({
      state: 'delivered',
      attempts: 2,
      delivered_at: ctx.now(),
      next_attempt_at: null,
      last_error: null,
    });
    expect(byId[g.id]).toMatchObject({
      state: 'failed',
      attempts: 1,
      next_attempt_at: null,
      last_error: 'refused by policy',
    });
    ctx.setNow(ctx.now() + 100_000);
    expect(await store.leaseDeliveries(ctx.now(), 10, 'three', 1000)).toEqual([]);
  });
}
