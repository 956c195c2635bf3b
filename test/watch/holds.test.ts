/** The watcher's held cases (src/watch/holds.ts): next looks soonest first, moved, kept, let go. */
import { expect, it } from 'vitest';
import { type Hold, Holds } from '../../src/watch/holds.ts';

const hold = (due: number, over: Partial<Hold> = {}): Hold => ({
  until: 10_000,
  due,
  version: 1,
  wake: Number.POSITIVE_INFINITY,
  pollUrl: 'https://svc.example/p',
  expires: 50_000,
  ...over,
});

it('hands out due looks soonest first, at most max, and only those due', () => {
  const h = new Holds();
  h.set('c', hold(300));
  h.set('a', hold(100));
  h.set('b', hold(200));
  h.set('later', hold(900));
  expect(h.takeDue(250, 10).map((x) => x.id)).toEqual(['a', 'b']);
  expect(h.takeDue(1000, 1).map((x) => [x.id, x.due])).toEqual([['c', 300]]);
  expect(h.size).toBe(4); // held while looked at
});

it('a look that keeps the case puts it back; one that does not lets it go; a moved look comes once', () => {
  const h = new Holds();
  h.set('kept', hold(100));
  h.set('gone', hold(100));
  h.set('moved', hold(100));
  h.set('moved', hold(150, { version: 2 })); // the earlier entry is stale now
  const due = h.takeDue(120, 10);
  expect(due.map((x) => x.id).sort()).toEqual(['gone', 'kept']);
  h.set('kept', hold(500));
  h.settle('kept');
  h.settle('gone');
  expect(h.size).toBe(2);
  expect(h.takeDue(1000, 10).map((x) => [x.id, x.due, x.version])).toEqual([
    ['moved', 150, 2],
    ['kept', 500, 1],
  ]);
  // A let-go slot is reused, and its old queue entries do not come back.
  h.settle('moved');
  h.settle('kept');
  h.set('new', hold(2000, { pollUrl: 'https://other.example/p' }));
  expect(h.takeDue(1500, 10)).toEqual([]);
  expect(h.takeDue(2000, 10)).toEqual([
    {
      id: 'new',
      origin: 'https://other.example',
      ...hold(2000, { pollUrl: 'https://other.example/p' }),
    },
  ]);
});

it('takes only what admit lets through; the others keep their place, and a pass over them is bounded', () => {
  const h = new Holds();
  const busy = { pollUrl: 'https://busy.example/p' };
  for (let i = 0; i < 6; i++) h.set(`b${i}`, hold(100 + i, busy));
  h.set('o1', hold(110));
  h.set('o2', hold(111));
  const asked: string[] = [];
  const notBusy = (origin: string) => {
    asked.push(origin);
    return origin !== 'https://busy.example';
  };
  // Six busy holds come first: at most max (4) are passed over, so the pass ends before o1.
  expect(h.takeDue(1000, 4, notBusy)).toEqual([]);
  expect(asked).toHaveLength(4);
  // They kept their place and their due times: the next pass sees them again, then o1 and o2.
  expect(h.takeDue(1000, 10, notBusy).map((x) => x.id)).toEqual(['o1', 'o2']);
  expect(h.takeDue(1000, 10).map((x) => [x.id, x.due])).toEqual([
    ['b0', 100],
    ['b1', 101],
    ['b2', 102],
    ['b3', 103],
    ['b4', 104],
    ['b5', 105],
  ]);
});

it('hands out one origin string per origin, whatever the path', () => {
  const h = new Holds();
  h.set('a', hold(1, { pollUrl: 'https://svc.example:8443/cases/a/poll?x=1' }));
  h.set('b', hold(2, { pollUrl: 'https://svc.example:8443/cases/b/poll' }));
  const [a, b] = h.takeDue(10, 10);
  expect(a?.origin).toBe('https://svc.example:8443');
  expect(b?.origin).toBe(a?.origin);
});

it('clear lets every hold go', () => {
  const h = new Holds();
  for (let i = 0; i < 5; i++) h.set(`c${i}`, hold(i));
  h.clear();
  expect(h.size).toBe(0);
  expect(h.takeDue(100, 10)).toEqual([]);
});
