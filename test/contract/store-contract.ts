/** The shared Store contract: SQLite and PostgreSQL run the same suite. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HISTORY_CAP, type Store } from '../../src/store/store.ts';
import type { StoredCase, StoredMessage } from '../../src/store/types.ts';
import { kvContract } from './kv-contract.ts';
import { outboxContract } from './outbox-contract.ts';
import { reviewUrlContract } from './review-url-contract.ts';
import { stepContract } from './step-contract.ts';

/** Makes a fresh, empty store; `now` is the store's clock. */
export type MakeStore = (now: () => number) => Promise<Store>;

let seq = 0;
/** A minimal stored case for store tests. */
export function sampleCase(over: Partial<StoredCase> = {}): StoredCase {
  seq++;
  return {
    id: `hc_${seq}_${Math.random().toString(36).slice(2, 8)}`,
    key: `k${seq}${Math.random().toString(36).slice(2, 6)}`,
    origin: 'https://svc.example',
    case_id: `review_${seq}_${Math.random().toString(36).slice(2, 8)}`,
    target: 'web:room',
    status: 'pending',
    version: 1,
    doc: {
      hitl: {
        spec_version: '0.8',
        case_id: 'x',
        poll_url: 'https://svc.example/p',
        type: 'approval',
        prompt: 'p',
        created_at: '2026-01-01T00:00:00Z',
        expires_at: '2026-01-02T00:00:00Z',
      },
      warnings: [],
      reminders_sent: [],
    },
    secrets: 'plain:{}',
    next_check_at: 1000,
    etag: null,
    poll_failures: 0,
    claim: null,
    created_at: 1,
    updated_at: 1,
    ...over,
  };
}

function message(caseId: string, target = 'web:room'): StoredMessage {
  return {
    case_id: caseId,
    target,
    platform: 'web',
    address: 'room',
    ref_id: null,
    state: 'posting',
    rendered_version: 1,
    error: null,
    posted_at: 5,
  };
}

/** Runs the contract against one Store implementation. */
export function runStoreContract(name: string, makeStore: MakeStore): void {
  describe(`store contract: ${name}`, () => {
    let now = 10_000;
    let store: Store;
    beforeEach(async () => {
      now = 10_000;
      store = await makeStore(() => now);
    });
    afterEach(async () => store.close());

    it('stores a case once per (origin, case_id)', async () => {
      const a = sampleCase();
      expect((await store.createCase(a)).created).toBe(true);
      const again = await store.createCase({
        ...sampleCase(),
        origin: a.origin,
        case_id: a.case_id,
      });
      expect(again.created).toBe(false);
      expect(again.case.id).toBe(a.id);
      expect(await store.getCaseByKey(a.key)).toMatchObject({ id: a.id });
      expect(await store.findCase(a.origin, a.case_id)).toMatchObject({ id: a.id, doc: a.doc });
      expect(await store.getCase('nope')).toBeUndefined();
    });

    it('compare-and-set updates', async () => {
      const a = sampleCase();
      await store.createCase(a);
      expect(await store.updateCase({ ...a, version: 2, status: 'opened' }, 1)).toBe(true);
      expect(await store.updateCase({ ...a, version: 2, status: 'completed' }, 1)).toBe(false);
      expect((await store.getCase(a.id))!.status).toBe('opened');
    });

    it('lists open cases and counts by status', async () => {
      await store.createCase(sampleCase({ created_at: 1 }));
      await store.createCase(
        sampleCase({ status: 'completed', next_check_at: null, created_at: 2 }),
      );
      expect(
        (await store.listCases({ open: true, limit: 10 })).every((c) => c.status === 'pending'),
      ).toBe(true);
      expect((await store.listCases({ limit: 10 })).length).toBe(2);
      expect(await store.countByStatus()).toEqual({ pending: 1, completed: 1 });
    });

    it("lists one chat's open cases, newest first, in keyset pages (listOpenInChat)", async () => {
      const inRoom = (created_at: number, status: StoredCase['status'] = 'pending') =>
        sampleCase({ created_at, status, next_check_at: status === 'pending' ? 1000 : null });
      const cases = [inRoom(10), inRoom(20), inRoom(20), inRoom(30, 'completed'), inRoom(40)];
      for (const c of cases) await store.createCase(c, { messages: [message(c.id)] });
      const elsewhere = inRoom(50);
      await store.createCase(elsewhere, {
        messages: [{ ...message(elsewhere.id, 'web:other'), address: 'other' }],
      });
      const chat = { platform: 'web', address: 'room' };
      const all = await store.listOpenInChat({ ...chat, limit: 10 });
      const [c10, c20a, c20b, , c40] = cases as [
        StoredCase,
        StoredCase,
        StoredCase,
        StoredCase,
        StoredCase,
      ];
      const twenties = [c20a.id, c20b.id].sort().reverse();
      expect(all.map((c) => c.id)).toEqual([c40.id, ...twenties, c10.id]);
      // Pages of two: the second starts after the last of the first, ties broken by id.
      const first = await store.listOpenInChat({ ...chat, limit: 2 });
      expect(first.map((c) => c.id)).toEqual([c40.id, twenties[0]]);
      const last = first[1]!;
      const second = await store.listOpenInChat({
        ...chat,
        limit: 2,
        before: { created_at: last.created_at, id: last.id },
      });
      expect(second.map((c) => c.id)).toEqual([twenties[1], c10.id]);
      expect(await store.listOpenInChat({ platform: 'web', address: 'nobody', limit: 5 })).toEqual(
        [],
      );
      // Across the platform's chats (the web inbox): each case once, the other room's too.
      const both = inRoom(60);
      await store.createCase(both, {
        messages: [message(both.id), { ...message(both.id, 'web:other'), address: 'other' }],
      });
      const web = await store.listOpenOnPlatform({ platform: 'web', limit: 3 });
      expect(web.map((c) => c.id)).toEqual([both.id, elsewhere.id, c40.id]);
      const more = await store.listOpenOnPlatform({ platform: 'web', limit: 10, before: c40 });
      expect(more.map((c) => c.id)).toEqual([...twenties, c10.id]);
      expect(await store.listOpenOnPlatform({ platform: 'slack', limit: 5 })).toEqual([]);
    });

    it('reports open cases, the oldest, and how many no target shows yet', async () => {
      expect(await store.openStats()).toEqual({ open: 0, oldestCreatedAt: null, undelivered: 0 });
      const a = sampleCase({ created_at: 1000 });
      const b = sampleCase({ created_at: 2000 });
      await store.createCase(a);
      await store.createCase(b);
      await store.createCase(
        sampleCase({ status: 'completed', next_check_at: null, created_at: 5 }),
      );
      await store.reserveMessage(message(a.id));
      await store.updateMessage({ ...message(a.id), state: 'posted', ref_id: 'r1' });
      await store.reserveMessage(message(b.id));
      expect(await store.openStats()).toEqual({ open: 2, oldestCreatedAt: 1000, undelivered: 1 });
    });

    it('lets exactly one of many claimants claim a case', async () => {
      const a = sampleCase();
      await store.createCase(a);
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.claimCase(a.id, `h${i}`, now + 1000)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const holder = (await store.getCase(a.id))!.claim!.holder;
      expect(await store.takeOverClaim(a.id, holder, 'late', now + 1000)).toBe(false);
      now += 2000;
      expect(await store.claimCase(a.id, 'other', now + 1000)).toBe(false);
      expect(await store.takeOverClaim(a.id, holder, 'late', now + 1000)).toBe(true);
      await store.releaseClaim(a.id, 'late');
      expect(await store.claimCase(a.id, 'next', now + 1000)).toBe(true);
    });

    it('never claims a terminal case', async () => {
      const a = sampleCase({ status: 'completed' });
      await store.createCase(a);
      expect(await store.claimCase(a.id, 'h', now + 1000)).toBe(false);
    });

    it('a late watch write never schedules a look at an ended case (its credentials are gone)', async () => {
      const [one, many] = [sampleCase(), sampleCase()];
      for (const c of [one, many]) {
        await store.createCase(c);
        // It ended (a poll or a confirming poll) after a look read it open.
        const ended = { ...c, version: 2, status: 'completed' as const, next_check_at: null };
        expect(await store.updateCase(ended, 1)).toBe(true);
      }
      await store.updateWatch(one.id, { next_check_at: now, etag: '"x"', poll_failures: 1 });
      expect(
        await store.updateWatchMany([
          { id: many.id, next_check_at: now, etag: '"y"', poll_failures: 0 },
        ]),
      ).toEqual([true]);
      for (const c of [one, many]) expect((await store.getCase(c.id))!.next_check_at).toBeNull();
      expect(await store.leaseDue(now + 60_000, 10, 'r1', 60_000)).toEqual([]);
    });

    it('leases due work once until the lease lapses', async () => {
      const due = sampleCase({ next_check_at: 5_000 });
      const later = sampleCase({ next_check_at: 50_000 });
      await store.createCase(due);
      await store.createCase(later);
      const leased = await store.leaseDue(now, 10, 'r1', 1000);
      expect(leased.map((c) => [c.id, c.next_check_at])).toEqual([[due.id, 5_000]]);
      // The lease's end is the case's next check (its holder may die).
      expect((await store.getCase(due.id))!.next_check_at).toBe(now + 1000);
      expect(await store.leaseDue(now, 10, 'r2', 1000)).toEqual([]);
      now += 1500;
      expect((await store.leaseDue(now, 10, 'r2', 1000)).map((c) => c.id)).toEqual([due.id]);
      await store.updateWatch(due.id, { next_check_at: 60_000, etag: '"e"', poll_failures: 2 });
      expect(await store.getCase(due.id)).toMatchObject({
        next_check_at: 60_000,
        etag: '"e"',
        poll_failures: 2,
      });
      now = 70_000;
      expect((await store.leaseDue(now, 10, 'r3', 1000)).map((c) => c.id).sort()).toEqual(
        [due.id, later.id].sort(),
      );
    });

    it('leaves the due cases of a busy origin due and unleased (skipOrigins)', async () => {
      const busy = sampleCase({ origin: 'https://busy.example', next_check_at: 1_000 });
      const other = sampleCase({ origin: 'https://other.example', next_check_at: 2_000 });
      await store.createCase(busy);
      await store.createCase(other);
      const leased = await store.leaseDue(now, 10, 'r1', 60_000, ['https://busy.example']);
      expect(leased.map((c) => c.id)).toEqual([other.id]);
      // Still due for the next free slot: nothing pushed back, nobody holds it.
      expect((await store.leaseDue(now, 10, 'r1', 60_000, [])).map((c) => c.id)).toEqual([busy.id]);
    });

    it('a stopping process gives its watch leases back, and only its own', async () => {
      const mine = sampleCase({ next_check_at: 5_000 });
      await store.createCase(mine);
      expect(await store.leaseDue(now, 10, 'r1', 60_000)).toHaveLength(1);
      const theirs = sampleCase({ next_check_at: 5_000 });
      await store.createCase(theirs);
      expect(await store.leaseDue(now, 10, 'r2', 60_000)).toHaveLength(1);
      expect(await store.releaseWatchLeases('r1', now, 1000)).toBe(1);
      // Due again within the spread (not at the lease's end) for anyone else; r2's lease holds.
      const at = (await store.getCase(mine.id))!.next_check_at!;
      expect(at).toBeGreaterThanOrEqual(now);
      expect(at).toBeLessThan(now + 1000);
      expect((await store.leaseDue(now + 1000, 10, 'r3', 60_000)).map((c) => c.id)).toEqual([
        mine.id,
      ]);
      expect(await store.releaseWatchLeases('nobody', now, 1000)).toBe(0);
    });

    it('names the owners of live watch leases, not of lapsed or given-back ones', async () => {
      for (const [owner, leaseMs] of [
        ['r1', 60_000],
        ['r1', 60_000],
        ['r2', 1_000],
        ['r3', 60_000],
      ] as const) {
        await store.createCase(sampleCase({ next_check_at: 5_000 }));
        expect(await store.leaseDue(now, 1, owner, leaseMs)).toHaveLength(1);
      }
      await store.releaseWatchLeases('r3', now, 1000);
      expect((await store.watchLeaseOwners(now + 1_000)).sort()).toEqual(['r1', 'r2']);
      // r2's lease lapsed: not named, and due for anyone.
      expect(await store.watchLeaseOwners(now + 1_001)).toEqual(['r1']);
    });

    it('takes millisecond times with a fraction (jitter, fractional seconds) as whole milliseconds', async () => {
      const c = sampleCase({ next_check_at: 5_000.4 });
      await store.createCase(c);
      await store.updateWatch(c.id, { next_check_at: 61_234.567, etag: null, poll_failures: 0 });
      expect((await store.getCase(c.id))!.next_check_at).toBeCloseTo(61_234.567, -1);
      expect(await store.claimCase(c.id, 'h', now + 999.5)).toBe(true);
      expect((await store.leaseDue(70_000.25, 10, 'r1', 1000.5)).map((x) => x.id)).toEqual([c.id]);
    });

    it('writes the watch rows of several polls in one call, a versioned one only at that version', async () => {
      const [a, b, gone] = [sampleCase(), sampleCase(), sampleCase()];
      await store.createCase(a);
      await store.createCase(b);
      expect(await store.leaseDue(now, 10, 'r1', 60_000)).toHaveLength(2);
      // b changed after the watcher leased it (version 1 -> 2): its versioned write does not land.
      expect(await store.updateCase({ ...b, version: 2, status: 'opened' }, 1)).toBe(true);
      const landed = await store.updateWatchMany([
        { id: a.id, next_check_at: 40_000.5, etag: '"a2"', poll_failures: 0, version: 1 },
        { id: b.id, next_check_at: 41_000, etag: '"b2"', poll_failures: 3, version: 1 },
        { id: gone.id, next_check_at: 42_000, etag: null, poll_failures: 0 },
      ]);
      expect(landed).toEqual([true, false, false]);
      expect(await store.getCase(a.id)).toMatchObject({ etag: '"a2"', poll_failures: 0 });
      expect((await store.getCase(a.id))!.next_check_at).toBeCloseTo(40_000.5, -1);
      expect(await store.getCase(b.id)).toMatchObject({ next_check_at: 1000, etag: null });
      // b is still leased (its write did not land); a's lease went with its write.
      expect(await store.leaseDue(now, 10, 'r2', 60_000)).toEqual([]);
      // Without a version the write lands whatever the version, and gives the lease back.
      expect(
        await store.updateWatchMany([
          { id: b.id, next_check_at: 5_000, etag: '"b3"', poll_failures: 1 },
        ]),
      ).toEqual([true]);
      expect(await store.getCase(b.id)).toMatchObject({
        version: 2,
        etag: '"b3"',
        poll_failures: 1,
      });
      expect((await store.leaseDue(now, 10, 'r2', 60_000)).map((c) => c.id)).toEqual([b.id]);
      expect(await store.updateWatchMany([])).toEqual([]);
    });

    it('leases due cases soonest first, at most the limit', async () => {
      const cs = [7_000, 3_000, 9_000, 5_000].map((t) => sampleCase({ next_check_at: t }));
      for (const c of cs) await store.createCase(c);
      const first = await store.leaseDue(now, 3, 'r1', 60_000);
      expect(first.map((c) => c.next_check_at)).toEqual([3_000, 5_000, 7_000]);
      expect(first[0]).toMatchObject({ id: cs[1]!.id, doc: cs[1]!.doc, version: 1 });
      expect((await store.leaseDue(now, 3, 'r2', 60_000)).map((c) => c.id)).toEqual([cs[2]!.id]);
    });

    it('tells a holder which of its holds still stand: any watch write, release or new lease ends one', async () => {
      const [a, b, c] = [sampleCase(), sampleCase(), sampleCase()];
      const d = sampleCase({ next_check_at: 2000 });
      for (const x of [a, b, c, d]) await store.createCase(x);
      expect(await store.leaseDue(now, 3, 'r1', 60_000)).toHaveLength(3);
      const until = now + 60_000;
      const holds = [a, b, c, d].map((x) => ({ id: x.id, until }));
      expect((await store.heldCases('r1', holds)).map((x) => x.id).sort()).toEqual(
        [a.id, b.id, c.id].sort(),
      );
      expect(await store.heldCases('r2', holds)).toEqual([]);
      // b: a watch write (a tap, a reminder) ends the hold; c: its status changed (still held).
      await store.updateWatch(b.id, { next_check_at: now + 500_000, etag: null, poll_failures: 0 });
      expect(await store.updateCase({ ...c, version: 2, status: 'opened' }, 1)).toBe(true);
      // d: held under another lease (a later `until`), not the one asked about.
      expect((await store.leaseDue(now + 1, 10, 'r1', 60_000)).map((x) => x.id)).toEqual([d.id]);
      const still = await store.heldCases('r1', holds);
      expect(still.map((x) => x.id).sort()).toEqual([a.id, c.id].sort());
      // What a look needs of a held case, not its document.
      expect(still.find((x) => x.id === c.id)).toEqual({
        id: c.id,
        version: 2,
        case_id: c.case_id,
        origin: c.origin,
        etag: c.etag,
        secrets: c.secrets,
        claim: null,
      });
      expect(await store.heldCases('r1', [])).toEqual([]);
    });

    it('a start-up re-poll leaves the cases of a live lease to their holder', async () => {
      const held = sampleCase({ next_check_at: 5_000 });
      const free = sampleCase({ next_check_at: 900_000 });
      await store.createCase(held);
      await store.createCase(free);
      expect(await store.leaseDue(now, 10, 'r1', 600_000)).toHaveLength(1);
      expect(await store.rescheduleOpen(now, 500)).toBe(1);
      expect((await store.getCase(held.id))!.next_check_at).toBe(now + 600_000);
      expect((await store.getCase(free.id))!.next_check_at).toBeLessThan(now + 500);
    });

    it('brings open cases forward for a start-up re-poll, leaving terminal ones alone', async () => {
      const far = sampleCase({ next_check_at: 900_000 });
      const done = sampleCase({ status: 'completed', next_check_at: null });
      await store.createCase(far);
      await store.createCase(done);
      expect(await store.rescheduleOpen(now, 500)).toBe(1);
      const at = (await store.getCase(far.id))!.next_check_at!;
      expect(at).toBeGreaterThanOrEqual(now);
      expect(at).toBeLessThan(now + 500);
      expect((await store.getCase(done.id))!.next_check_at).toBeNull();
    });

    it('reserves a message slot once and finds it by ref', async () => {
      const a = sampleCase();
      await store.createCase(a);
      expect(await store.reserveMessage(message(a.id))).toBe(true);
      expect(await store.reserveMessage(message(a.id))).toBe(false);
      expect(await store.staleMessages(10)).toHaveLength(1);
      await store.updateMessage({ ...message(a.id), ref_id: 'm1', state: 'posted' });
      expect(await store.findMessageByRef('web', 'm1')).toMatchObject({
        case_id: a.id,
        state: 'posted',
      });
      expect(await store.staleMessages(10)).toHaveLength(0);
      await store.updateCase({ ...a, version: 2 }, 1);
      expect(await store.staleMessages(10)).toHaveLength(1);
      expect(await store.listMessages(a.id)).toHaveLength(1);
    });

    it('finding 1 (orphaned case): stores a case with its message reservations and first history row, or nothing', async () => {
      const a = sampleCase();
      const ingested = { at: 7, kind: 'ingested', detail: { target: 'web:room' } };
      const made = await store.createCase(a, {
        messages: [message(a.id), message(a.id, 'web:other')],
        history: ingested,
      });
      expect(made.created).toBe(true);
      expect((await store.listMessages(a.id)).map((m) => [m.target, m.state])).toEqual([
        ['web:room', 'posting'],
        ['web:other', 'posting'],
      ]);
      expect(await store.listHistory(a.id)).toEqual([ingested]);
      // A repeat of the same case writes nothing more.
      const again = await store.createCase(
        { ...sampleCase(), origin: a.origin, case_id: a.case_id },
        { messages: [message('other', 'web:third')], history: ingested },
      );
      expect(again).toMatchObject({ created: false, case: { id: a.id } });
      expect(await store.listMessages(a.id)).toHaveLength(2);
      expect(await store.listMessages('other')).toHaveLength(0);
      expect(await store.listHistory(a.id)).toHaveLength(1);
      // A write that fails half-way (here a message the schema refuses) leaves no case behind.
      const b = sampleCase();
      const broken = { ...message(b.id), platform: null } as unknown as StoredMessage;
      await expect(
        store.createCase(b, { messages: [broken], history: ingested }),
      ).rejects.toThrow();
      expect(await store.getCase(b.id)).toBeUndefined();
      expect(await store.findCase(b.origin, b.case_id)).toBeUndefined();
      expect(await store.listHistory(b.id)).toHaveLength(0);
    });

    it('keeps history in order', async () => {
      const a = sampleCase();
      await store.createCase(a);
      await store.appendHistory(a.id, { at: 1, kind: 'one', detail: { n: 1 } });
      await store.appendHistory(a.id, { at: 2, kind: 'two', detail: {} });
      expect((await store.listHistory(a.id)).map((h) => h.kind)).toEqual(['one', 'two']);
    });

    it('finding 1 (orphaned case): lists open cases stored without any message, for reconcile', async () => {
      const orphan = sampleCase({ created_at: 100 });
      const posted = sampleCase({ created_at: 100 });
      const done = sampleCase({ created_at: 100, status: 'completed', next_check_at: null });
      const fresh = sampleCase({ created_at: 5000 });
      for (const c of [orphan, posted, done, fresh]) await store.createCase(c);
      await store.reserveMessage(message(posted.id));
      expect((await store.orphanCases(1000, 10)).map((c) => c.id)).toEqual([orphan.id]);
      expect((await store.orphanCases(6000, 10)).map((c) => c.id).sort()).toEqual(
        [orphan.id, fresh.id].sort(),
      );
    });

    it('finding 2 (unbounded hostile stream): history is capped per case with a summary row; status changes are kept', async () => {
      const a = sampleCase();
      await store.createCase(a);
      for (let i = 0; i < HISTORY_CAP + 20; i++) {
        await store.appendHistory(a.id, { at: i, kind: 'tap_refused', detail: { i } });
        if (i === HISTORY_CAP + 5)
          await store.appendHistory(a.id, { at: i, kind: 'status', detail: { to: 'opened' } });
      }
      const rows = await store.listHistory(a.id);
      expect(rows).toHaveLength(HISTORY_CAP + 1);
      expect(rows.filter((r) => r.kind === 'history_capped')).toHaveLength(1);
      expect(rows[HISTORY_CAP - 1]!.kind).toBe('history_capped');
      expect(rows.at(-1)).toMatchObject({ kind: 'status', detail: { to: 'opened' } });
      // Another case has its own budget.
      const b = sampleCase();
      await store.createCase(b);
      await store.appendHistory(b.id, { at: 1, kind: 'tap', detail: {} });
      expect(await store.listHistory(b.id)).toHaveLength(1);
    });

    it('retention: purges final cases older than the cutoff with their rows, nothing else', async () => {
      const old = sampleCase({ status: 'completed', next_check_at: null, updated_at: 100 });
      const recent = sampleCase({ status: 'expired', next_check_at: null, updated_at: 5_000 });
      const open = sampleCase({ status: 'pending', updated_at: 100 });
      for (const c of [old, recent, open]) {
        await store.createCase(c);
        await store.reserveMessage(message(c.id));
        await store.appendHistory(c.id, { at: 1, kind: 'ingested', detail: {} });
      }
      expect(await store.purgeClosed(1_000, 100)).toBe(1);
      expect(await store.getCase(old.id)).toBeUndefined();
      expect(await store.listMessages(old.id)).toEqual([]);
      expect(await store.listHistory(old.id)).toEqual([]);
      expect((await store.getCase(recent.id))?.status).toBe('expired');
      expect((await store.getCase(open.id))?.status).toBe('pending');
      expect(await store.listHistory(open.id)).toHaveLength(1);
      expect(await store.purgeClosed(1_000, 100)).toBe(0);
      // A second old case can be stored again under the same (origin, case_id) after its purge.
      expect(
        (await store.createCase({ ...old, id: `${old.id}b`, key: `${old.key}b` })).created,
      ).toBe(true);
    });

    it('retention: purges expired key-values only', async () => {
      await store.kv.set('lease', 'x', 100);
      await store.kv.set('forever', 'y');
      await store.kv.set('later', 'z', 10_000);
      now += 200;
      expect(await store.purgeExpiredKv(now)).toBe(1);
      expect(await store.kv.get('forever')).toBe('y');
      expect(await store.kv.get('later')).toBe('z');
      expect(await store.purgeExpiredKv(now)).toBe(0);
    });

    outboxContract({ store: () => store, now: () => now, setNow: (t) => (now = t), sampleCase });
    kvContract({ kv: () => store.kv, advance: (ms) => (now += ms) });
    stepContract({ store: () => store, now: () => now, sampleCase });
    reviewUrlContract({
      store: () => store,
      now: () => now,
      advance: (ms) => (now += ms),
      sampleCase,
    });
  });
}
