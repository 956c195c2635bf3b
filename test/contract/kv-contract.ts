/** The KeyValue contract: the SQLite and PostgreSQL stores' kv and MemoryKeyValue all pass it. */
import { expect, it } from 'vitest';
import type { KeyValue } from '../../src/adapter.ts';

export function kvContract(o: { kv: () => KeyValue; advance: (ms: number) => void }): void {
  const { kv, advance } = o;
  it('key-values expire and setIfAbsent wins once', async () => {
    await kv().set('a', '1', 100);
    expect(await kv().get('a')).toBe('1');
    const wins = await Promise.all(
      Array.from({ length: 10 }, () => kv().setIfAbsent('b', 'x', 100)),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    advance(200);
    expect(await kv().get('a')).toBeUndefined();
    expect(await kv().setIfAbsent('b', 'y')).toBe(true);
    expect(await kv().get('b')).toBe('y');
    expect(await kv().setIfAbsent('b', 'z')).toBe(false);
  });

  it('issue 22: setIfAbsent with entries writes them with the claim, only when it wins, with its ttl', async () => {
    const also = [
      { key: 'g:msg', value: 'hello' },
      { key: 'g:count', value: '1' },
    ];
    await kv().set('g:count', '0'); // an entry that exists is overwritten, like set
    const wins = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        kv().setIfAbsent('g:slot', `s${i}`, 100, [{ key: 'g:msg', value: `m${i}` }, also[1]!]),
      ),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    const winner = wins.indexOf(true);
    expect(await kv().get('g:slot')).toBe(`s${winner}`);
    expect(await kv().get('g:msg')).toBe(`m${winner}`); // the losers wrote nothing
    expect(await kv().get('g:count')).toBe('1');
    // A lost claim leaves the entries as they were.
    expect(await kv().setIfAbsent('g:slot', 'late', 100, [{ key: 'g:msg', value: 'late' }])).toBe(
      false,
    );
    expect(await kv().get('g:msg')).toBe(`m${winner}`);
    advance(200); // the entries expire with the claim
    expect(await kv().get('g:msg')).toBeUndefined();
    expect(await kv().get('g:count')).toBeUndefined();
    expect(await kv().setIfAbsent('g:slot', 'next', undefined, also)).toBe(true);
    advance(10_000_000); // no ttl: kept
    expect(await kv().get('g:msg')).toBe('hello');
  });

  it('key-values: compare-and-set renews only a lease still held, delete and compare-and-delete release', async () => {
    await kv().set('lease', 'me', 100);
    expect(await kv().compareAndSet('lease', 'me', 'me', 1_000)).toBe(true);
    advance(500); // past the first ttl, inside the renewed one
    expect(await kv().get('lease')).toBe('me');
    expect(await kv().compareAndSet('lease', 'other', 'other', 1_000)).toBe(false);
    expect(await kv().compareAndDelete('lease', 'other')).toBe(false);
    expect(await kv().get('lease')).toBe('me');
    advance(2_000); // lapsed: a renewal no longer counts, and someone else may take it
    expect(await kv().compareAndSet('lease', 'me', 'me', 1_000)).toBe(false);
    expect(await kv().setIfAbsent('lease', 'other', 1_000)).toBe(true);
    expect(await kv().compareAndDelete('lease', 'me')).toBe(false);
    expect(await kv().compareAndDelete('lease', 'other')).toBe(true);
    expect(await kv().get('lease')).toBeUndefined();
    await kv().set('gone', 'x');
    await kv().delete('gone');
    await kv().delete('never-there');
    expect(await kv().get('gone')).toBeUndefined();
  });

  it('key-values: a delete is gone at once, with its ttl: free for setIfAbsent, out of list', async () => {
    await kv().set('flow:1', 'step-2', 60_000);
    expect(await kv().setIfAbsent('flow:1', 'again', 60_000)).toBe(false);
    await kv().delete('flow:1');
    // No time passes: a delete is not a short-lived value left to expire.
    expect(await kv().get('flow:1')).toBeUndefined();
    expect(await kv().list('flow:', 10)).toEqual([]);
    expect(await kv().setIfAbsent('flow:1', 'again', 60_000)).toBe(true);
    expect(await kv().get('flow:1')).toBe('again');
  });

  it('key-values: list by prefix, live only, in key order, limited; % and _ are literal', async () => {
    await kv().set('room:a:2', 'two');
    await kv().set('room:a:1', 'one');
    await kv().set('room:a:3', 'three', 100);
    await kv().set('room:b:1', 'other room');
    await kv().set('room%a', 'not a prefix match');
    await kv().set('room_a', 'not a prefix match');
    expect(await kv().list('room:a:', 10)).toEqual([
      { key: 'room:a:1', value: 'one' },
      { key: 'room:a:2', value: 'two' },
      { key: 'room:a:3', value: 'three' },
    ]);
    expect(await kv().list('room:a:', 2)).toHaveLength(2);
    advance(200);
    expect((await kv().list('room:a:', 10)).map((e) => e.key)).toEqual(['room:a:1', 'room:a:2']);
    expect(await kv().list('room%', 10)).toEqual([{ key: 'room%a', value: 'not a prefix match' }]);
  });
}
