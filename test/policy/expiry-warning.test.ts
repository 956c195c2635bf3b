/** The rules of expiry warnings (pure): durations, thresholds per case, which are due, the next. */
import { describe, expect, it } from 'vitest';
import { notifyEvent } from '../../src/notify/deliveries.ts';
import {
  caseExpiryWarnings,
  dueWarnings,
  durationSeconds,
  durationWords,
  expiryWarningSchema,
  nextWarning,
  type WarnedCase,
} from '../../src/policy/expiry-warning.ts';
import type { StoredCase } from '../../src/store/types.ts';

const T0 = Date.parse('2026-12-02T06:00:00Z');
const EXPIRES = new Date(T0 + 3 * 3600_000).toISOString();
const MIN = 60_000;

function warned(before: number[], status: WarnedCase['status'] = 'pending'): WarnedCase {
  return {
    status,
    doc: {
      hitl: { expires_at: EXPIRES },
      expiry_warnings: caseExpiryWarnings(before, EXPIRES, T0),
    },
  };
}

describe('durations', () => {
  it('reads s, m, h, d and their sums; refuses anything else', () => {
    expect(durationSeconds('15m')).toBe(900);
    expect(durationSeconds('1h30m')).toBe(5400);
    expect(durationSeconds(' 90s ')).toBe(90);
    expect(durationSeconds('2d')).toBe(172_800);
    for (const bad of ['', '15', 'm', '1.5h', '-5m', '0m', 'soon', '15min']) {
      expect(durationSeconds(bad), bad).toBeUndefined();
    }
    expect(durationWords(5400)).toBe('1 h 30 min');
    expect(durationWords(90)).toBe('1 min 30 s');
  });

  it('takes one, a comma list or an array; distinct, largest first; "0" is none; errors name the entry', () => {
    expect(expiryWarningSchema.parse('15m')).toEqual([900]);
    expect(expiryWarningSchema.parse('15m, 1h,15m')).toEqual([3600, 900]);
    expect(expiryWarningSchema.parse(['5m', '1h'])).toEqual([3600, 300]);
    expect(expiryWarningSchema.parse('0')).toEqual([]);
    const r = expiryWarningSchema.safeParse(['1h', 'later']);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual([1]);
    expect(r.error?.issues[0]?.message).toMatch(/duration like "15m"/);
    expect(expiryWarningSchema.safeParse('31d').success).toBe(false);
    expect(expiryWarningSchema.safeParse('1m,2m,3m,4m,5m,6m').success).toBe(false);
  });
});

describe('a case and its thresholds', () => {
  it('drops thresholds already passed on arrival; none left is no warnings at all', () => {
    expect(caseExpiryWarnings([4 * 3600, 3600], EXPIRES, T0)).toEqual({
      before_s: [3600],
      sent: [],
    });
    expect(caseExpiryWarnings([4 * 3600], EXPIRES, T0)).toBeUndefined();
    expect(caseExpiryWarnings([], EXPIRES, T0)).toBeUndefined();
  });

  it('is due once per threshold; several reached at once come together; none at or after expiry', () => {
    const c = warned([3600, 900]);
    const expires = Date.parse(EXPIRES);
    expect(nextWarning(c)).toBe(expires - 3600_000);
    expect(dueWarnings(c, expires - 61 * MIN)).toEqual([]);
    expect(dueWarnings(c, expires - 60 * MIN)).toEqual([3600]);
    expect(dueWarnings(c, expires - 10 * MIN)).toEqual([3600, 900]);
    c.doc.expiry_warnings!.sent.push({ before_s: 3600, at: expires - 60 * MIN });
    expect(dueWarnings(c, expires - 30 * MIN)).toEqual([]);
    expect(nextWarning(c)).toBe(expires - 15 * MIN);
    expect(dueWarnings(c, expires)).toEqual([]);
  });

  it('is never due on an ended case, an undelivered one, or one a ladder ended', () => {
    const late = Date.parse(EXPIRES) - MIN;
    for (const status of ['completed', 'expired', 'cancelled'] as const) {
      expect(dueWarnings(warned([3600], status), late)).toEqual([]);
      expect(nextWarning(warned([3600], status))).toBeUndefined();
    }
    const undelivered = warned([3600]);
    undelivered.doc.delivery_failed = { at: EXPIRES, reason: 'x' };
    expect(dueWarnings(undelivered, late)).toEqual([]);
    const ended = warned([3600]);
    ended.doc.escalation = { final: { outcome: 'policy' } };
    expect(dueWarnings(ended, late)).toEqual([]);
  });

  it('a recorded warning is the notify event expiring:<smallest new threshold>, whatever notify_on says', () => {
    const prev = {
      ...warned([3600, 900]),
      status: 'pending',
      doc: {
        ...warned([3600, 900]).doc,
        notify_url: 'https://agent.example/hook',
        notify_on: 'final',
      },
    } as unknown as StoredCase;
    const next = structuredClone(prev);
    next.doc.expiry_warnings!.sent.push({ before_s: 3600, at: T0 }, { before_s: 900, at: T0 });
    expect(notifyEvent(next, prev)).toBe('expiring:900');
    expect(notifyEvent(prev, prev)).toBeNull();
  });
});
