/**
 * The fair part of the poll pool, on a fake clock: origins that hang or are not yet known to
 * answer share three quarters of the budget, each a fair part, and the rest stays for origins that
 * answer (issue 32, item 3).
 */
import { expect, it } from 'vitest';
import { OriginPool } from '../../src/net/origin-pool.ts';

/** A pool of 64 (16 per origin) on a fake clock, and items that end when the test says. */
function pool() {
  let t = 0;
  const p = new OriginPool(64, 16, () => {}, { slowMs: 2000, now: () => t });
  const ends: Array<() => void> = [];
  const byOrigin = new Map<string, Array<() => void>>();
  const start = (origin: string) =>
    p.tryRun(
      origin,
      () =>
        new Promise<void>((resolve) => {
          ends.push(resolve);
          byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), resolve]);
        }),
    );
  const endAll = (origin: string) => {
    for (const end of byOrigin.get(origin) ?? []) end();
    byOrigin.delete(origin);
  };
  return {
    p,
    start,
    ends,
    endAll,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

it('FAIR-WATCH-2: hanging and unknown origins never hold the reserve; an origin that answers still starts', async () => {
  const { p, start, ends, advance } = pool();
  // A service that answers: one quick poll makes it known.
  expect(start('https://good')).toBe(true);
  ends.pop()!();
  await p.idle();
  expect(p.limited()).not.toContain('https://good');
  // 100 origins whose polls hang, 16 cases each: together they get 48 slots, one each here.
  let hangingStarted = 0;
  for (let i = 0; i < 100; i++)
    for (let k = 0; k < 16; k++) if (start(`https://hang-${i}`)) hangingStarted++;
  expect(hangingStarted).toBe(48);
  expect(p.free).toBe(16);
  // Once the lane is full every limited origin is skipped by the lease query, the answering one not.
  expect(p.saturated()).toContain('https://hang-99');
  expect(p.saturated()).not.toContain('https://good');
  advance(5000);
  expect(p.room('https://good')).toBe(16);
  for (let k = 0; k < 16; k++) expect(start('https://good')).toBe(true);
  expect(start('https://good')).toBe(false); // its own cap
});

it('FAIR-WATCH-3: a slow origin is limited until a poll of it answers quickly again; four slow origins share the lane', async () => {
  const { p, start, ends, endAll, advance } = pool();
  for (const o of ['https://a', 'https://b', 'https://c', 'https://d']) {
    expect(start(o)).toBe(true);
    ends.pop()!(); // quick: each is known to answer
  }
  await p.idle();
  // Each may take 16 while quick; once they run past 2 s they count against the lane of 48.
  for (const o of ['https://a', 'https://b', 'https://c']) for (let k = 0; k < 16; k++) start(o);
  expect(p.free).toBe(16);
  advance(2500);
  expect(p.limited()).toEqual(expect.arrayContaining(['https://a', 'https://b', 'https://c']));
  expect(p.room('https://d')).toBe(16); // d answers: the reserve is its
  // A hanging item of d makes d limited too, and the lane (48, all held) has no room for it.
  expect(start('https://d')).toBe(true);
  advance(2500);
  expect(p.room('https://d')).toBe(0);
  // All end slowly: a, b, c, d are remembered as slow and share the lane, 12 each.
  for (const end of ends.splice(0)) end();
  await p.idle();
  for (let k = 0; k < 16; k++)
    for (const o of ['https://a', 'https://b', 'https://c', 'https://d']) start(o);
  expect(p.free).toBe(16);
  expect(p.room('https://a')).toBe(0);
  // An origin not known yet is limited too: no room while the lane is full.
  expect(start('https://e')).toBe(false);
  // Polls of a that answer quickly make it trusted again.
  endAll('https://a');
  await new Promise((r) => setImmediate(r));
  expect(p.limited()).not.toContain('https://a');
  expect(p.room('https://a')).toBe(16);
});
