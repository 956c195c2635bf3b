/**
 * The store contract of the inbox's read (listOpenOnPlatform with filters), SQLite and PostgreSQL:
 * the service, type and policy filters are applied before the limit and the cursor, so a filtered page is
 * full while matches remain, even when every match is older than a page of other cases.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { casePolicy } from '../../src/policy/policy.ts';
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

/** A case under the approval policy `name` (undefined: none), created at `at`. */
function underPolicy(at: number, name: string | undefined): StoredCase {
  const c = sampleCase({ created_at: at });
  if (!name) return c;
  const policy = casePolicy(name, {
    required: 2,
    actions: ['approve'],
    veto: true,
    requester_may_approve: false,
  });
  return { ...c, doc: { ...c.doc, policy } };
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

    it('filters by policy name, or no policy, before the limit and the cursor', async () => {
      // Older: 6 four-eyes cases; newer: 8 "pair+case" and 8 without a policy, interleaved.
      const four = Array.from({ length: 6 }, (_, i) => underPolicy(100 + i, 'four-eyes'));
      const newer = Array.from({ length: 16 }, (_, i) =>
        underPolicy(1000 + i, i % 2 ? 'pair+case' : undefined),
      );
      for (const c of [...four, ...newer]) await store.createCase(c, { messages: [card(c)] });
      const ids = (cs: StoredCase[]) => cs.map((c) => c.id).reverse();
      const web = { platform: 'web', limit: 4 };
      const first = await store.listOpenOnPlatform({ ...web, policy: 'four-eyes' });
      expect(first.map((c) => c.id)).toEqual(ids(four).slice(0, 4));
      const rest = await store.listOpenOnPlatform({
        ...web,
        policy: 'four-eyes',
        before: first[3],
      });
      expect(rest.map((c) => c.id)).toEqual(ids(four).slice(4));
      const none = await store.listOpenOnPlatform({ ...web, limit: 50, policy: null });
      expect(none.map((c) => c.id)).toEqual(ids(newer.filter((_, i) => i % 2 === 0)));
      const pair = await store.listOpenOnPlatform({ ...web, limit: 50, policy: 'pair+case' });
      expect(pair.map((c) => c.id)).toEqual(ids(newer.filter((_, i) => i % 2 === 1)));
      expect(await store.listOpenOnPlatform({ ...web, policy: 'four' })).toEqual([]);
      expect(
        await store.listOpenOnPlatform({ ...web, policy: 'four-eyes', type: 'selection' }),
      ).toEqual([]);
      expect(await store.listOpenOnPlatform({ ...web, limit: 50 })).toHaveLength(22);
    });
  });
}
