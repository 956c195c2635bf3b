/** randomId draws its bytes from a pooled CSPRNG buffer: each byte serves one id, never two. */
import { expect, it } from 'vitest';
import { randomId } from '../../src/cases/ids.ts';

it('ids are the asked length, base64url, and do not repeat across pool refills', () => {
  const seen = new Set<string>();
  // 3,000 x 12 bytes spans about nine 4 KiB pools, so refills and pool ends are crossed.
  for (let i = 0; i < 3000; i++) {
    const id = randomId(12);
    expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    seen.add(id);
  }
  expect(seen.size).toBe(3000);
  // Odd sizes leave remainders at a pool's end; larger than the pool goes to the CSPRNG directly.
  expect(Buffer.from(randomId(7), 'base64url')).toHaveLength(7);
  expect(Buffer.from(randomId(5000), 'base64url')).toHaveLength(5000);
});

it('consecutive ids share no bytes (a spent part of the pool is never handed out again)', () => {
  const a = Buffer.from(randomId(4096 - 16), 'base64url');
  const b = Buffer.from(randomId(32), 'base64url');
  // b did not fit in what was left: it comes from a fresh pool, not from a's wiped bytes.
  expect(b.equals(Buffer.alloc(32))).toBe(false);
  expect(a.subarray(0, 32).equals(b)).toBe(false);
});
