/**
 * Group commit on a real PostgreSQL server: concurrent intakes and posts go as grouped statements
 * (group-commit.ts) and store exactly what each write alone would; a write the server refuses
 * fails alone.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createMany } from '../../src/store/postgres/create-many.ts';
import { openPool } from '../../src/store/postgres/pool.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { HISTORY_CAP, type Store } from '../../src/store/store.ts';
import type { StoredCase, StoredMessage } from '../../src/store/types.ts';
import { sampleCase } from '../contract/store-contract.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function open(): Promise<{ store: Store; url: string }> {
  const url = await freshSchemaUrl();
  const store = await openPostgresStore(url);
  closers.push(() => store.close());
  return { store, url };
}

function reservation(c: StoredCase, target = 'web:room'): StoredMessage {
  return {
    case_id: c.id,
    target,
    platform: 'web',
    address: target.slice(4),
    ref_id: null,
    state: 'posting',
    rendered_version: 1,
    error: null,
    posted_at: null,
  };
}

/** An intake's write: the case, its reservation, its posting lease and its first history row. */
const intake = (store: Store, c: StoredCase) =>
  store.createCase(c, {
    messages: [reservation(c)],
    leases: [{ key: `post:${c.id}`, value: 'me', until: 9_000_000_000_000 }],
    history: { at: c.created_at, kind: 'ingested', detail: { ratio: 0.5, case_id: c.case_id } },
  });

describe('PostgreSQL group commit', () => {
  it('concurrent intakes store each case with its reservation, lease and history row', async () => {
    const { store } = await open();
    const cases = Array.from({ length: 30 }, (_, i) => {
      const c = sampleCase({ created_at: 1000 + i + 0.4 });
      // A fraction inside the document stays a fraction (only the columns are rounded).
      (c.doc.hitl as unknown as Record<string, unknown>).ratio = 0.25;
      return c;
    });
    const results = await Promise.all(cases.map((c) => intake(store, c)));
    expect(results.every((r) => r.created)).toBe(true);
    for (const c of cases) {
      const stored = (await store.getCase(c.id))!;
      // The columns are whole numbers, the document exactly as given.
      expect(stored).toEqual({ ...c, created_at: Math.round(c.created_at) });
      expect((await store.listMessages(c.id)).map((m) => m.state)).toEqual(['posting']);
      expect(await store.listHistory(c.id)).toEqual([
        {
          at: Math.round(c.created_at),
          kind: 'ingested',
          detail: { ratio: 0.5, case_id: c.case_id },
        },
      ]);
      expect(await store.kv.get(`post:${c.id}`)).toBe('me');
    }
  });

  it('a case sent twice in one burst is created once; the other intake gets the stored case', async () => {
    const { store } = await open();
    const first = sampleCase();
    const others = Array.from({ length: 6 }, () => sampleCase());
    const again = { ...sampleCase(), origin: first.origin, case_id: first.case_id };
    const results = await Promise.all([first, ...others, again].map((c) => intake(store, c)));
    expect(results.map((r) => r.created)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(results[7]!.case.id).toBe(first.id);
    expect(await store.getCase(again.id)).toBeUndefined();
    expect(await store.listMessages(again.id)).toEqual([]);
  });

  it('an intake the server refuses fails alone; the others of its group are stored', async () => {
    const { store, url } = await open();
    const taken = sampleCase();
    await intake(store, taken);
    const good = Array.from({ length: 8 }, () => sampleCase());
    // Same review key as a stored case: a unique violation that is not the (origin, case_id) conflict.
    const bad = sampleCase({ key: taken.key });
    const burst = [...good.slice(0, 5), bad, ...good.slice(5)];
    // The group statement itself fails as a whole (nothing of it is written)...
    const pool = openPool(url, {});
    closers.push(() => pool.end());
    await expect(
      createMany(
        pool,
        burst.map((c) => ({ c })),
      ),
    ).rejects.toBeInstanceOf(pg.DatabaseError);
    // ...so the store writes each of that group alone, and only the bad one fails.
    const results = await Promise.allSettled(burst.map((c) => intake(store, c)));
    expect(results.map((r) => r.status)).toEqual(
      burst.map((c) => (c === bad ? 'rejected' : 'fulfilled')),
    );
    for (const c of good) expect((await store.listMessages(c.id)).length).toBe(1);
    expect(await store.getCase(bad.id)).toBeUndefined();
    expect(await store.listHistory(bad.id)).toEqual([]);
    expect(await store.kv.get(`post:${bad.id}`)).toBeUndefined();
  });

  it('concurrent posts record each message, its history row and its lease release', async () => {
    const { store } = await open();
    const cases = Array.from({ length: 20 }, () => sampleCase());
    for (const c of cases) await intake(store, c);
    // Another process took this lease over: the release must not delete it.
    await store.kv.set(`post:${cases[3]!.id}`, 'other');
    await Promise.all(
      cases.map((c, i) =>
        store.updateMessage(
          { ...reservation(c), ref_id: `r${i}`, state: 'posted', posted_at: 7000 + i + 0.5 },
          {
            history: [{ at: 7000 + i, kind: 'posted', detail: { target: 'web:room' } }],
            releaseLease: `post:${c.id}`,
            leaseOwner: 'me',
          },
        ),
      ),
    );
    for (const [i, c] of cases.entries()) {
      const [m] = await store.listMessages(c.id);
      expect(m).toMatchObject({ ref_id: `r${i}`, state: 'posted', posted_at: 7001 + i });
      expect((await store.listHistory(c.id)).map((h) => h.kind)).toEqual(['ingested', 'posted']);
      expect(await store.kv.get(`post:${c.id}`)).toBe(i === 3 ? 'other' : undefined);
    }
  });

  it('two posts of one case never share a statement: both land, in order', async () => {
    const { store } = await open();
    const c = sampleCase();
    await store.createCase(c, {
      messages: [reservation(c, 'web:a'), reservation(c, 'web:b')],
    });
    const fillers = Array.from({ length: 4 }, () => sampleCase());
    for (const f of fillers) await intake(store, f);
    const post = (m: StoredMessage, at: number) =>
      store.updateMessage(
        { ...m, state: 'posted', ref_id: m.target },
        { history: [{ at, kind: 'posted', detail: { target: m.target } }] },
      );
    await Promise.all([
      ...fillers.map((f) => post(reservation(f), 1)),
      post(reservation(c, 'web:a'), 2),
      post(reservation(c, 'web:b'), 3),
    ]);
    expect((await store.listMessages(c.id)).map((m) => m.state)).toEqual(['posted', 'posted']);
    expect((await store.listHistory(c.id)).map((h) => h.detail)).toEqual([
      { target: 'web:a' },
      { target: 'web:b' },
    ]);
  });

  it('a post in a group whose rows would pass the history cap is capped as alone; the others are not', async () => {
    const { store, url } = await open();
    const full = sampleCase();
    const fillers = Array.from({ length: 4 }, () => sampleCase());
    for (const c of [full, ...fillers]) await intake(store, c);
    const pool = openPool(url, {});
    closers.push(() => pool.end());
    await pool.query(
      `INSERT INTO history (case_id, at, kind, detail)
       SELECT $1, g, 'tap_refused', '{}'::jsonb FROM generate_series(1, $2::int) g`,
      [full.id, HISTORY_CAP - 3],
    );
    const post = (c: StoredCase, kinds: string[]) =>
      store.updateMessage(
        { ...reservation(c), state: 'posted', ref_id: c.id },
        { history: kinds.map((kind, i) => ({ at: 9000 + i, kind, detail: {} })) },
      );
    // Two fillers go alone; the third, the full case and the fourth wait and go as one group.
    await Promise.all([
      post(fillers[0]!, ['posted']),
      post(fillers[1]!, ['posted']),
      post(fillers[2]!, ['posted']),
      post(full, ['posted', 'poll', 'status']),
      post(fillers[3]!, ['posted']),
    ]);
    const rows = await store.listHistory(full.id);
    expect(rows.map((r) => r.kind).slice(-3)).toEqual(['posted', 'history_capped', 'status']);
    expect(rows).toHaveLength(HISTORY_CAP + 1);
    for (const f of fillers)
      expect((await store.listHistory(f.id)).map((h) => h.kind)).toEqual(['ingested', 'posted']);
  });
});
