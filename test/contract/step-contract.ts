/**
 * One commit per step (issue 22), part of the Store contract for SQLite and PostgreSQL: the writes
 * that go with a case change (history rows, a claim release, posting leases) land with it or not
 * at all, and a write from an older copy of a case never drops a live claim.
 */
import { expect, it } from 'vitest';
import { HISTORY_CAP, type Store } from '../../src/store/store.ts';
import type { StoredCase, StoredMessage } from '../../src/store/types.ts';

function reservation(caseId: string, target: string): StoredMessage {
  return {
    case_id: caseId,
    target,
    platform: 'web',
    address: target.slice(4),
    ref_id: null,
    state: 'posting',
    rendered_version: 1,
    error: null,
    posted_at: 5.5,
  };
}

/** The step part of the contract. */
export function stepContract(ctx: {
  store: () => Store;
  now: () => number;
  sampleCase: (over?: Partial<StoredCase>) => StoredCase;
}): void {
  it('issue 22: intake stores the case, its reservations, its first row and its posting leases in one write', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    const made = await store.createCase(a, {
      messages: [reservation(a.id, 'web:one'), reservation(a.id, 'web:two')],
      history: { at: 7, kind: 'ingested', detail: { target: 'route:x' } },
      leases: [{ key: `posting:${a.id}:web:one`, value: 'me', until: ctx.now() + 1000.4 }],
    });
    expect(made).toMatchObject({ created: true, case: { id: a.id, version: 1 } });
    expect(made.case).toEqual(await store.getCase(a.id));
    expect((await store.listMessages(a.id)).map((m) => m.target)).toEqual(['web:one', 'web:two']);
    expect(await store.listHistory(a.id)).toEqual([
      { at: 7, kind: 'ingested', detail: { target: 'route:x' } },
    ]);
    expect(await store.kv.get(`posting:${a.id}:web:one`)).toBe('me');
    // Another intake of the same case writes nothing, its lease included.
    const b = ctx.sampleCase({ origin: a.origin, case_id: a.case_id });
    const again = await store.createCase(b, {
      messages: [reservation(b.id, 'web:one')],
      history: { at: 8, kind: 'ingested', detail: {} },
      leases: [{ key: `posting:${b.id}:web:one`, value: 'other', until: ctx.now() + 1000 }],
    });
    expect(again).toMatchObject({ created: false, case: { id: a.id } });
    expect(await store.listMessages(b.id)).toEqual([]);
    expect(await store.kv.get(`posting:${b.id}:web:one`)).toBeUndefined();
    expect(await store.listHistory(a.id)).toHaveLength(1);
  });

  it('issue 22: the posted state, its history row and the lease release are one write; only the holder releases', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    const lease = `posting:${a.id}:web:one`;
    await store.createCase(a, {
      messages: [reservation(a.id, 'web:one')],
      leases: [{ key: lease, value: 'me', until: ctx.now() + 1000 }],
    });
    const posted = { ...reservation(a.id, 'web:one'), state: 'posted' as const, ref_id: 'm1' };
    await store.updateMessage(posted, {
      history: [{ at: 9, kind: 'posted', detail: { target: 'web:one' } }],
      releaseLease: lease,
      leaseOwner: 'someone-else',
    });
    expect(await store.kv.get(lease)).toBe('me');
    expect((await store.listMessages(a.id))[0]).toMatchObject({ state: 'posted', ref_id: 'm1' });
    await store.updateMessage(posted, { releaseLease: lease, leaseOwner: 'me' });
    expect(await store.kv.get(lease)).toBeUndefined();
    expect((await store.listHistory(a.id)).map((h) => h.kind)).toEqual(['posted']);
  });

  it('issue 22: a claim and its tap row are one write; a refused claim writes no row', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    await store.createCase(a);
    const tap = { at: 3, kind: 'tap', detail: { user: 'ann' } };
    expect(await store.claimCase(a.id, 'h1', ctx.now() + 1000, tap)).toBe(true);
    expect(await store.claimCase(a.id, 'h2', ctx.now() + 1000, { ...tap, at: 4 })).toBe(false);
    expect(await store.listHistory(a.id)).toEqual([tap]);
    expect((await store.getCase(a.id))!.claim?.holder).toBe('h1');
  });

  it('issue 22: a case write carries its history rows and its claim release, only when the compare-and-set wins', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    await store.createCase(a);
    // An older copy (no claim in it) written after a claim was taken: the claim stays.
    expect(await store.claimCase(a.id, 'h1', ctx.now() + 1000)).toBe(true);
    expect(await store.updateCase({ ...a, version: 2, status: 'opened' }, 1)).toBe(true);
    expect((await store.getCase(a.id))!.claim?.holder).toBe('h1');
    const rows = [
      { at: 5, kind: 'submit', detail: { outcome: 'accepted' } },
      { at: 5, kind: 'status', detail: { to: 'completed' } },
    ];
    // A lost compare-and-set writes neither the rows nor the release.
    expect(
      await store.updateCase({ ...a, version: 3, status: 'completed' }, 1, undefined, {
        history: rows,
        releaseClaim: 'h1',
      }),
    ).toBe(false);
    expect(await store.listHistory(a.id)).toEqual([]);
    expect((await store.getCase(a.id))!.claim?.holder).toBe('h1');
    // Another holder's name releases nothing.
    expect(
      await store.updateCase({ ...a, version: 3, status: 'opened' }, 2, undefined, {
        releaseClaim: 'h2',
      }),
    ).toBe(true);
    expect((await store.getCase(a.id))!.claim?.holder).toBe('h1');
    expect(
      await store.updateCase({ ...a, version: 4, status: 'completed' }, 3, undefined, {
        history: rows,
        releaseClaim: 'h1',
      }),
    ).toBe(true);
    const after = (await store.getCase(a.id))!;
    expect(after).toMatchObject({ status: 'completed', version: 4, claim: null });
    expect(await store.listHistory(a.id)).toEqual(rows);
  });

  it('issue 22: rows written with a step obey the history cap', async () => {
    const store = ctx.store();
    const a = ctx.sampleCase();
    await store.createCase(a);
    for (let i = 0; i < HISTORY_CAP - 2; i++)
      await store.appendHistory(a.id, { at: i, kind: 'tap_refused', detail: { i } });
    await store.updateCase({ ...a, version: 2 }, 1, undefined, {
      history: [
        { at: 1, kind: 'submit', detail: {} },
        { at: 2, kind: 'poll', detail: {} },
        { at: 3, kind: 'status', detail: { to: 'opened' } },
      ],
    });
    const rows = await store.listHistory(a.id);
    expect(rows.map((r) => r.kind).slice(-3)).toEqual(['submit', 'history_capped', 'status']);
    expect(rows).toHaveLength(HISTORY_CAP + 1);
  });
}
