/**
 * The sealed-answers checks both dialects run (issue 32 item 5): a case's answer and a notify
 * delivery's body are written sealed, read back whole (the body byte for byte, as it was signed),
 * and a plain row left by an older version reads as it is and is sealed by the start-up pass.
 * `rows()` reads every row of the store raw, as a copy of the database shows them.
 */
import { expect, it } from 'vitest';
import {
  ANSWER_SEAL_PURPOSE,
  sealedAnswerStore,
  sealStoredAnswers,
} from '../../src/store/sealed-answers.ts';
import { createTextSealer } from '../../src/store/sealer.ts';
import type { NotifyDelivery, Store } from '../../src/store/store.ts';
import type { StoredCase } from '../../src/store/types.ts';
import { sampleCase } from '../contract/store-contract.ts';

export const SECRET = 'correct-horse-battery-staple-42';

/** A store under test and a raw read of all its rows. */
export interface RawStore {
  store: Store;
  rows(): Promise<string>;
  close(): Promise<void>;
}

const answered = (c: StoredCase): StoredCase => ({
  ...c,
  status: 'completed',
  version: c.version + 1,
  next_check_at: null,
  doc: { ...c.doc, result: { action: 'submit', data: { values: { password: SECRET } } } },
});

const delivery = (c: StoredCase): NotifyDelivery => ({
  id: `nd_${c.id}`,
  case_id: c.id,
  event: 'completed',
  url: 'https://agent.example/hook',
  body: JSON.stringify({ id: c.id, result: c.doc.result }),
  state: 'pending',
  attempts: 0,
  next_attempt_at: 0,
  last_error: null,
  created_at: 1,
  delivered_at: null,
});

export function sealedAnswerChecks(name: string, open: () => Promise<RawStore>): void {
  const sealer = createTextSealer('a-test-secret-key-of-enough-length', ANSWER_SEAL_PURPOSE);

  it(`SEAL-REST-1 (${name}): an answer and its notify body are sealed in the rows, whole when read`, async () => {
    const raw = await open();
    try {
      const store = sealedAnswerStore(raw.store, sealer);
      const c = sampleCase();
      expect((await store.createCase(c)).created).toBe(true);
      const done = answered(c);
      const d = delivery(done);
      expect(await store.updateCase(done, c.version, [d])).toBe(true);
      expect(await raw.rows()).not.toContain(SECRET);
      expect(await raw.rows()).toContain(c.id);
      expect((await store.getCase(c.id))?.doc.result).toEqual(done.doc.result);
      expect((await store.listCases({ limit: 10 }))[0]?.doc.result).toEqual(done.doc.result);
      const [leased] = await store.leaseDeliveries(10, 10, 'me', 1000);
      expect(leased?.body).toBe(d.body);
      expect((await store.listDeliveries(c.id))[0]?.body).toBe(d.body);
    } finally {
      await raw.close();
    }
  });

  it(`SEAL-REST-2 (${name}): a plain row of an older version reads as it is and is sealed at start-up`, async () => {
    const raw = await open();
    try {
      const c = sampleCase();
      await raw.store.createCase(c);
      const done = answered(c);
      await raw.store.updateCase(done, c.version); // written without a key
      expect(await raw.rows()).toContain(SECRET);
      const store = sealedAnswerStore(raw.store, sealer);
      expect((await store.getCase(c.id))?.doc.result).toEqual(done.doc.result);
      expect(await sealStoredAnswers(store, raw.store, 1)).toBe(1);
      expect(await raw.rows()).not.toContain(SECRET);
      const after = await store.getCase(c.id);
      expect(after?.doc.result).toEqual(done.doc.result);
      expect(after?.version).toBe(done.version); // nothing else about it changed
      expect(await sealStoredAnswers(store, raw.store, 1)).toBe(0);
    } finally {
      await raw.close();
    }
  });
}
