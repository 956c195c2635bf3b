/**
 * Issue 35, bulk decisions from the web inbox: a preview names exactly which cases get which
 * action and sends nothing; only its confirm token submits, each case through the card's tap path
 * (one POST to the service per case), each with its own outcome; a refusal stops nothing else.
 * Four-eyes cases are not selectable. Real relay, fast fake HITL service counting submits.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hitlBody, startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let service: Awaited<ReturnType<typeof startFastService>>;
let relay: RelayHandle;
let clock = Date.now();
const key: Record<string, string> = {};
const id: Record<string, string> = {};

beforeAll(async () => {
  service = await startFastService();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    now: () => clock,
    allow: { 'web:ops': ['ann', 'bob'], 'web:dev': ['ann'], 'web:secret': ['bob'] },
    configFile: {
      policies: { pair: { required: 2 } },
      routes: { four: { targets: ['web:ops'], policy: 'pair' } },
    },
  });
  const cases: [string, string, Record<string, unknown>][] = [
    ['a1', 'web:ops', service.create('bulk-a1')],
    ['a2', 'web:ops', service.create('bulk-a2')],
    ['d1', 'web:dev', service.create('bulk-d1')],
    // Its submit token is not the service's: the service refuses it (401).
    ['bad', 'web:dev', hitlBody(service.url, 'not-the-service-secret', 'bulk-bad')],
    ['four', 'route:four', service.create('bulk-four')],
    ['secret', 'web:secret', service.create('bulk-secret')],
  ];
  for (const [name, target, body] of cases) {
    clock += 1000;
    const sent = await relay.send(target, body);
    expect(sent.status).toBe(201);
    id[name] = sent.body.id;
    key[name] = (await relay.relay.services.store.getCase(sent.body.id))!.key;
  }
});
afterAll(async () => {
  await relay?.stop();
  await service?.stop();
});

const bulk = async (body: unknown, type = 'application/json') => {
  const res = await request(`${relay.url}/web/api/inbox/bulk`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
};
const ann = { id: 'ann', name: 'Ann' };

it('INBOX-BULK-1 rows say whether they may be in a bulk decision, and why not', async () => {
  const items = await eventually(async () => {
    const res = await request(`${relay.url}/web/api/inbox?user=ann`);
    const b = (await res.body.json()) as any;
    return b.items.length === 5 && b.items;
  });
  const row = (name: string) => items.find((i: any) => i.key === key[name]);
  expect(row('a1').bulk).toEqual({ actions: expect.arrayContaining(['approve']), reason: null });
  expect(row('four').bulk).toEqual({ actions: [], reason: expect.stringContaining('four-eyes') });
  expect(row('secret')).toBeUndefined();
});

it('INBOX-BULK-2 bad requests are refused before anything is read or sent', async () => {
  const keys = [key.a1!];
  expect((await bulk({ user: ann, action: 'approve', keys }, 'text/plain')).status).toBe(415);
  expect(
    (await bulk(`user=ann&action=approve&keys=${key.a1}`, 'application/x-www-form-urlencoded'))
      .status,
  ).toBe(415);
  expect((await bulk({ user: ann, action: 'approve', keys: Array(51).fill(key.a1) })).status).toBe(
    413,
  );
  expect((await bulk({ user: ann, action: 'approve', keys: [] })).body.error).toBe('invalid_keys');
  expect((await bulk({ user: ann, action: 'Approve!', keys })).body.error).toBe('invalid_action');
  expect((await bulk({ action: 'approve', keys })).body.error).toBe('invalid_user');
  expect((await bulk({ user: ann, confirm: 'x' })).body.error).toBe('invalid_confirm');
  const forged = await bulk({ user: ann, confirm: 'A'.repeat(43) });
  expect(forged).toMatchObject({ status: 409, body: { error: 'confirm_expired' } });
  expect(service.submits).toBe(0);
});

it('INBOX-BULK-3 a preview sends nothing; its confirmation submits each case once, each with its own outcome', async () => {
  const names = ['a1', 'a2', 'd1', 'bad', 'four', 'secret'];
  const preview = await bulk({ user: ann, action: 'approve', keys: names.map((n) => key[n]) });
  expect(preview.status).toBe(200);
  const chosen = ['a1', 'a2', 'd1', 'bad'];
  expect(preview.body).toMatchObject({ action: 'approve', count: 4, confirm: expect.any(String) });
  expect(preview.body.items.map((i: any) => i.key)).toEqual(chosen.map((n) => key[n]));
  expect(preview.body.items.map((i: any) => i.room)).toEqual(['ops', 'ops', 'dev', 'dev']);
  expect(preview.body.text).toContain('4 cases');
  expect(preview.body.text).toContain('Deploy build bulk-a1 to production? (web:ops)');
  expect(preview.body.skipped).toEqual([
    { key: key.four, prompt: expect.any(String), reason: expect.stringContaining('four-eyes') },
    { key: key.secret, prompt: null, reason: expect.stringContaining('not in your inbox') },
  ]);
  expect(service.submits).toBe(0); // no POST without the confirmation

  // Someone else's confirmation is refused and does not use it up.
  const bob = await bulk({ user: { id: 'bob' }, confirm: preview.body.confirm });
  expect(bob.status).toBe(409);
  expect(service.submits).toBe(0);

  const done = await bulk({ user: ann, confirm: preview.body.confirm });
  expect(done.status).toBe(200);
  const byKey = Object.fromEntries(done.body.results.map((r: any) => [r.key, r]));
  for (const n of ['a1', 'a2', 'd1'])
    expect(byKey[key[n]!]).toMatchObject({ result: 'confirmed', outcome: 'submitted' });
  expect(byKey[key.bad!]).toMatchObject({ result: 'refused', outcome: 'inline_unavailable' });
  expect(service.submits).toBe(4); // exactly one POST per selected case
  for (const n of ['a1', 'a2', 'd1']) await relay.until(id[n]!, (c) => c.final);
  expect((await relay.get(id.four!)).final).toBe(false);

  // Single use: the same confirmation again sends nothing.
  expect((await bulk({ user: ann, confirm: preview.body.confirm })).status).toBe(409);
  expect(service.submits).toBe(4);
  // Decided cases leave the inbox; a new preview of them has nothing to confirm.
  const again = await bulk({ user: ann, action: 'approve', keys: [key.a1] });
  expect(again.body).toMatchObject({ count: 0, confirm: null });
});
