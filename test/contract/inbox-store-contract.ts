/**
 * The store contract of the inbox's read (listOpenOnPlatform with filters), SQLite and PostgreSQL:
 * the service and type filters are applied before the limit and the cursor, so a filtered page is
 * full while matches remain, even when every match is older than a page of other cases.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import type { StoredCase } from '../../src/store/types.ts';
import { type MakeStore, sampleCase } from './store-contract.ts';

const card = (c: StoredCase) => ({
  case_id: c.id,
  target: 'web:room',
  platform: 'web',
  address: 'room',
  ref_id: 'r',
  state: 'posted' as const,
  rendered_version: 1,
  error: null,
  posted_at: 5,
});

/** A case of `origin` and `type`, created at `at`. */
function caseOf(at: number, origin: string, type: 'approval' | 'selection'): StoredCase {
  const c = sampleCase({ created_at: at, origin });
  return { ...c, doc: { ...c.doc, hitl: { ...c.doc.hitl, type } } };
}

export function runInboxStoreContract(name: string, makeStore: MakeStore): void {
  describe(`inbox store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore(() => 10_000);
    });
    afterEach(async () => store.close());

    it('filters by service and type before the limit and the cursor (listOpenOnPlatform)', async () => {
      // Older: 7 selections at other.example:8443 (plain http); newer: 30 approvals at svc.example.
      const old = Array.from({ length: 7 }, (_, i) =>
        caseOf(100 + i, 'http://other.example:8443', 'selection'),
      );
      const fresh = Array.from({ length: 30 }, (_, i) =>
        caseOf(1000 + i, 'https://svc.example', 'approval'),
      );
      for (const c of [...old, ...fresh]) await store.createCase(c, { messages: [card(c)] });
      const newestFirst = old.map((c) => c.id).reverse();
      const web = { platform: 'web', limit: 5 };
      const first = await store.listOpenOnPlatform({ ...web, service: 'other.example:8443' });
      expect(first.map((c) => c.id)).toEqual(newestFirst.slice(0, 5));
      const rest = await store.listOpenOnPlatform({
        ...web,
        service: 'other.example:8443',
        before: first[4],
      });
      expect(rest.map((c) => c.id)).toEqual(newestFirst.slice(5));
      expect(
        (await store.listOpenOnPlatform({ ...web, type: 'selection' })).map((c) => c.id),
      ).toEqual(newestFirst.slice(0, 5));
      const both = { ...web, limit: 50, service: 'svc.example', type: 'approval' };
      expect(await store.listOpenOnPlatform(both)).toHaveLength(30);
      expect(await store.listOpenOnPlatform({ ...both, service: 'other.example:8443' })).toEqual(
        [],
      );
      expect(await store.listOpenOnPlatform({ ...web, service: 'other.example' })).toEqual([]);
    });
  });
}
