/**
 * Secrets are compared in constant time (spec v0.9 §13: "timing-safe" token comparison; §9 the
 * callback signature). No test can time a compare reliably, so this one reads the compare
 * functions: each must decide with `timingSafeEqual` and never with `===`, `.equals` or a string
 * form of the digests. What the functions answer is checked too.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { hashToken, tokenMatches } from '../../src/hitl-service/tokens.ts';
import { signatureMatches } from '../../src/watch/callback-receiver.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** The text of `export function name(…) {…}` in `file` (up to the next top-level closing brace). */
function functionText(file: string, name: string): string {
  const source = readFileSync(`${ROOT}${file}`, 'utf8');
  const start = source.indexOf(`export function ${name}(`);
  expect(start, `${name} in ${file}`).toBeGreaterThanOrEqual(0);
  return source.slice(start, source.indexOf('\n}\n', start));
}

it.each([
  ['src/hitl-service/tokens.ts', 'tokenMatches'],
  ['src/watch/callback-receiver.ts', 'signatureMatches'],
])('TIMING-1 %s %s compares with timingSafeEqual only', (file, name) => {
  const body = functionText(file, name);
  expect(body).toMatch(/timingSafeEqual\(/);
  // Lengths may be compared (they are not secret); the bytes only by timingSafeEqual.
  const withoutLength = body.replace(/\b\w+\.length === \w+\.length/g, '');
  expect(withoutLength).not.toMatch(/===|!==|\.equals\(|\.compare\(|toString\(/);
});

it('TIMING-2 the compares answer right: the token and the signature, not a near miss', () => {
  const token = 'a'.repeat(43);
  expect(tokenMatches(token, hashToken(token))).toBe(true);
  expect(tokenMatches(`${token.slice(0, -1)}b`, hashToken(token))).toBe(false);
  const raw = Buffer.from('{"event":"review.completed","case_id":"c1"}');
  const good = createHmac('sha256', 's3cret').update(raw).digest('hex');
  expect(signatureMatches(raw, 's3cret', `sha256=${good}`)).toBe(true);
  const bad = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`;
  expect(signatureMatches(raw, 's3cret', `sha256=${bad}`)).toBe(false);
});
