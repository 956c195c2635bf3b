/** GroupWriter: who goes alone, who waits and goes together, and what one failure does to the rest. */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type GroupSpec, GroupWriter } from '../../src/store/postgres/group-commit.ts';

type Item = { key: string; v: number; bad?: boolean };

/** A spec whose statements finish when the test says so; it records every statement it ran. */
function recorder(o: Partial<GroupSpec<Item, number>> = {}, groupError?: () => Error) {
  const statements: number[][] = [];
  const open: (() => void)[] = [];
  const gate = () => new Promise<void>((r) => open.push(r));
  const spec: GroupSpec<Item, number> = {
    async one(item) {
      statements.push([item.v]);
      await gate();
      if (item.bad) throw new pg.DatabaseError('duplicate key', 0, 'error');
      return item.v * 10;
    },
    async many(items) {
      statements.push(items.map((i) => i.v));
      await gate();
      if (items.some((i) => i.bad)) throw groupError?.() ?? new pg.DatabaseError('x', 0, 'error');
      return items.map((i) => i.v * 10);
    },
    key: (i) => i.key,
    inFlight: 2,
    maxGroup: 3,
    ...o,
  };
  /** Lets every statement started so far finish, and waits until nothing more is pending. */
  const settle = async () => {
    for (let round = 0; round < 20; round++) {
      await new Promise((r) => setImmediate(r));
      for (const f of open.splice(0)) f();
    }
  };
  return { writer: new GroupWriter(spec), statements, settle };
}

const items = (n: number, key = (i: number) => `k${i}`): Item[] =>
  Array.from({ length: n }, (_, i) => ({ key: key(i), v: i }));

describe('GroupWriter', () => {
  it('sends writes alone while a slot is free, then the waiting ones together, up to maxGroup', async () => {
    const { writer, statements, settle } = recorder();
    const out = Promise.all(items(7).map((i) => writer.write(i)));
    expect(statements).toEqual([[0], [1]]);
    await settle();
    expect(await out).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(statements).toEqual([[0], [1], [2, 3, 4], [5, 6]]);
  });

  it('never puts two writes with one key in one group, and keeps their order', async () => {
    const { writer, statements, settle } = recorder();
    const out = Promise.all(
      items(6, (i) => (i < 2 ? `a${i}` : 'same')).map((i) => writer.write(i)),
    );
    await settle();
    await out;
    expect(statements).toEqual([[0], [1], [2], [3], [4], [5]]);
  });

  it('a write waits while an earlier one with its key is in flight, even with a slot free', async () => {
    const { writer, statements, settle } = recorder();
    const out = Promise.all(
      items(3, (i) => (i < 2 ? 'same' : 'other')).map((i) => writer.write(i)),
    );
    expect(statements).toEqual([[0], [2]]);
    await settle();
    expect(await out).toEqual([0, 10, 20]);
    expect(statements).toEqual([[0], [2], [1]]);
  });

  it('a write the server refuses fails alone: the rest of its group is written write by write', async () => {
    const { writer, statements, settle } = recorder();
    const all = items(5);
    all[3]!.bad = true;
    const out = Promise.allSettled(all.map((i) => writer.write(i)));
    await settle();
    const results = await out;
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(pg.DatabaseError);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : null))).toEqual([
      0,
      10,
      20,
      null,
      40,
    ]);
    expect(statements).toEqual([[0], [1], [2, 3, 4], [2], [3], [4]]);
  });

  it('a lost connection (maybe after the commit) reaches every caller of the group, nothing is retried', async () => {
    const lost = () => new Error('Connection terminated unexpectedly');
    const { writer, statements, settle } = recorder({}, lost);
    const all = items(5);
    all[4]!.bad = true;
    const out = Promise.allSettled(all.map((i) => writer.write(i)));
    await settle();
    const results = await out;
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
    ]);
    for (const r of results.slice(2))
      expect((r as PromiseRejectedResult).reason.message).toBe(
        'Connection terminated unexpectedly',
      );
    expect(statements).toEqual([[0], [1], [2, 3, 4]]);
  });
});
