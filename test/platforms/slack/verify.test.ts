import { createHmac } from 'node:crypto';
import { verifySlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { verifySlackSignature } from '../../../platforms/slack/verify.ts';

const secret = '8f742231b10e8888abcd99yyyzzz85a5';
const body = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
const nowMs = 1_700_000_000_000;
const ts = String(nowMs / 1000);
const sign = (t: string, b: string, s = secret) =>
  `v0=${createHmac('sha256', s).update(`v0:${t}:${b}`).digest('hex')}`;
const check = (headers: Record<string, string | undefined>, raw = body, at = nowMs) =>
  verifySlackSignature({ signingSecret: secret, headers, rawBody: Buffer.from(raw), nowMs: at });

describe('slack verify', () => {
  it('accepts a correctly signed request, as Bolt does', () => {
    const headers = { 'x-slack-signature': sign(ts, body), 'x-slack-request-timestamp': ts };
    expect(check(headers)).toEqual({ ok: true });
    expect(() =>
      verifySlackRequest({
        signingSecret: secret,
        body,
        headers: { 'x-slack-signature': sign(ts, body), 'x-slack-request-timestamp': Number(ts) },
        nowMilliseconds: nowMs,
      }),
    ).not.toThrow();
  });

  it('refuses a wrong secret, a changed body, and a malformed signature', () => {
    expect(
      check({
        'x-slack-signature': sign(ts, body, 'other-secret-123'),
        'x-slack-request-timestamp': ts,
      }),
    ).toEqual({ ok: false, reason: 'bad_signature' });
    expect(
      check({ 'x-slack-signature': sign(ts, body), 'x-slack-request-timestamp': ts }, `${body}x`),
    ).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check({ 'x-slack-signature': 'v1=abc', 'x-slack-request-timestamp': ts })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses missing headers and a timestamp that is not a number', () => {
    expect(check({ 'x-slack-request-timestamp': ts })).toEqual({
      ok: false,
      reason: 'missing_headers',
    });
    expect(check({ 'x-slack-signature': sign(ts, body) })).toEqual({
      ok: false,
      reason: 'missing_headers',
    });
    expect(
      check({ 'x-slack-signature': sign('1e9', body), 'x-slack-request-timestamp': '1e9' }),
    ).toEqual({ ok: false, reason: 'bad_timestamp' });
  });

  it('refuses a timestamp more than 5 minutes old or ahead, even when correctly signed', () => {
    const old = String(nowMs / 1000 - 301);
    const ahead = String(nowMs / 1000 + 301);
    expect(
      check({ 'x-slack-signature': sign(old, body), 'x-slack-request-timestamp': old }),
    ).toEqual({ ok: false, reason: 'stale' });
    expect(
      check({ 'x-slack-signature': sign(ahead, body), 'x-slack-request-timestamp': ahead }),
    ).toEqual({ ok: false, reason: 'stale' });
    const edge = String(nowMs / 1000 - 300);
    expect(
      check({ 'x-slack-signature': sign(edge, body), 'x-slack-request-timestamp': edge }),
    ).toEqual({ ok: true });
  });
});
