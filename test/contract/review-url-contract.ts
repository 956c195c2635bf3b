/**
 * Review URLs are not stored long-term (HITL v0.9 checklist), part of the Store contract for SQLite
 * and PostgreSQL: a final case's review_url is dropped once its drop-after time has passed, by the
 * retention pass, and nothing else about the case changes. The clock is the test's (no sleeps).
 */
import { expect, it } from 'vitest';
import { purgeOnce, REVIEW_URL_GRACE_MS, reviewUrlDropAt } from '../../src/store/retention.ts';
import { createSealer } from '../../src/store/sealer.ts';
import type { Store } from '../../src/store/store.ts';
import type { StoredCase } from '../../src/store/types.ts';

const sealer = createSealer(undefined);
const REVIEW = 'https://svc.example/review/r1?token=K7xR2mN4pQ8sT1vW3xY5zA9bC7dE';
const RETIRED = sealer.seal({ submit_token: null, review_url: '' });

export function reviewUrlContract(t: {
  store: () => Store;
  now: () => number;
  advance: (ms: number) => void;
  sampleCase: (over?: Partial<StoredCase>) => StoredCase;
}): void {
  /** A stored case with a review URL due to be dropped at `dropAt` (ended now when final). */
  async function stored(status: StoredCase['status'], dropAt: number): Promise<StoredCase> {
    const c = t.sampleCase({
      status,
      secrets: sealer.seal({ submit_token: null, review_url: REVIEW }),
      next_check_at: status === 'pending' ? t.now() : null,
      updated_at: t.now(),
    });
    c.doc.review_url_drop_at = dropAt;
    c.doc.result = { action: 'approve', data: { n: 1 } };
    return (await t.store().createCase(c)).case;
  }
  const drop = () => t.store().dropReviewUrls(t.now(), RETIRED, 100);
  const urlOf = async (id: string) =>
    sealer.open((await t.store().getCase(id))!.secrets).review_url;

  it('REVIEWURL-1 kept while open and before its time; dropped after; a repeat drops nothing', async () => {
    const open = await stored('pending', t.now() - 1);
    const later = await stored('completed', t.now() + 60_000);
    const due = await stored('completed', t.now() + 1_000);
    expect(await drop()).toBe(0);
    t.advance(1_000);
    expect(await drop()).toBe(1);
    expect(await urlOf(open.id)).toBe(REVIEW);
    expect(await urlOf(later.id)).toBe(REVIEW);
    expect(await urlOf(due.id)).toBe('');
    expect(await drop()).toBe(0);
    t.advance(59_000);
    expect(await drop()).toBe(1);
    expect(await urlOf(later.id)).toBe('');
    expect(await urlOf(open.id)).toBe(REVIEW);
    expect(await drop()).toBe(0);
  });

  it('REVIEWURL-2 the drop changes the secrets and the marker only; a copy read before loses its write', async () => {
    const before = await stored('expired', t.now());
    const at = t.now();
    t.advance(5);
    expect(await drop()).toBe(1);
    const after = (await t.store().getCase(before.id))!;
    const { review_url_drop_at: _d, ...docBefore } = before.doc;
    expect(after.doc).toEqual({
      ...docBefore,
      review_url_retired_at: new Date(at + 5).toISOString(),
    });
    expect(after.version).toBe(before.version + 1);
    const same = (c: StoredCase) => ({ ...c, version: 0, doc: null, secrets: null });
    expect(same(after)).toEqual(same(before));
    expect(sealer.open(after.secrets)).toEqual({ submit_token: null, review_url: '' });
    // A write from the copy read before the drop does not bring the review URL back.
    expect(
      await t.store().updateCase({ ...before, version: before.version + 1 }, before.version),
    ).toBe(false);
    expect(await urlOf(before.id)).toBe('');
  });

  it('REVIEWURL-3 the retention pass drops what is due (also with retention off); the drop time is the link expiry, within a day of the end', async () => {
    const end = t.now();
    const expiresIn = (ms: number) => new Date(end + ms).toISOString();
    expect(reviewUrlDropAt(expiresIn(3_600_000), end)).toBe(end + 3_600_000);
    expect(reviewUrlDropAt(expiresIn(-3_600_000), end)).toBe(end);
    expect(reviewUrlDropAt(expiresIn(30 * REVIEW_URL_GRACE_MS), end)).toBe(
      end + REVIEW_URL_GRACE_MS,
    );
    expect(reviewUrlDropAt(undefined, end)).toBe(end + REVIEW_URL_GRACE_MS);
    expect(reviewUrlDropAt('not a time', end)).toBe(end + REVIEW_URL_GRACE_MS);
    const c = await stored('cancelled', reviewUrlDropAt(expiresIn(3_600_000), end));
    const pass = () =>
      purgeOnce(t.store(), { retentionMs: 0, retiredSecrets: RETIRED, batch: 2 }, t.now());
    expect((await pass()).reviewUrls).toBe(0);
    t.advance(3_600_000);
    expect((await pass()).reviewUrls).toBe(1);
    expect((await pass()).reviewUrls).toBe(0);
    expect(await urlOf(c.id)).toBe('');
    expect((await t.store().getCase(c.id))?.doc.review_url_retired_at).toBe(
      new Date(t.now()).toISOString(),
    );
  });
}
