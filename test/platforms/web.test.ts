import { describe, expect, it } from 'vitest';
import { createWebAdapter, WEB_MESSAGE_TTL_MS } from '../../platforms/web/index.ts';
import { createLogger } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';

const card = (n: number): Card => ({
  caseId: `hc_${n}`,
  key: `k${n}`,
  title: 'Approval needed',
  prompt: `case ${n}`,
  lines: [],
  hint: null,
  actions: [
    { action: 'approve', label: 'Approve', style: 'primary', payload: `hitl:k${n}:approve` },
  ],
  link: null,
  status: 'Waiting',
  final: false,
});

describe('web chat adapter', () => {
  it('lists a room in posting order past ten messages, and forgets it WEB_MESSAGE_TTL_MS after its last write', async () => {
    let now = 1_000_000;
    const store = openSqliteStore(':memory:', () => now);
    const web = createWebAdapter();
    await web.start({
      kv: store.kv,
      log: createLogger({ level: 'silent' }),
      onTap: async () => ({ outcome: 'submitted', text: 'ok', card: null }),
    });
    const list = web.routes.find((r) => r.path === '/web/api/rooms/:room/messages')!;
    const room = async (name: string) =>
      (
        await list.handle({
          method: 'GET',
          path: '',
          query: new URLSearchParams(),
          headers: {},
          rawBody: Buffer.alloc(0),
          params: { room: name },
        })
      ).body as Array<{ id: string; case: string }>;
    const refs = [];
    // One after another: posting order is the order of the slots (2 sorts after 10 as text).
    for (let i = 0; i < 12; i++) refs.push(await web.post('long', card(i)));
    expect((await room('long')).map((m) => m.id)).toEqual(refs.map((r) => r.id));
    now += WEB_MESSAGE_TTL_MS - 1000;
    // An edit keeps the edited message longer; the others lapse.
    await web.update(refs[3]!, { ...card(3), final: true, actions: [] });
    now += 2000;
    expect((await room('long')).map((m) => m.id)).toEqual([refs[3]!.id]);
    now += WEB_MESSAGE_TTL_MS;
    expect(await room('long')).toEqual([]);
    // Purged by the hourly retention pass like any expired key-value.
    expect(await store.purgeExpiredKv(now)).toBeGreaterThan(0);
  });

  it('keeps every message of concurrent posts, and a message belongs to one room', async () => {
    const store = openSqliteStore(':memory:');
    const web = createWebAdapter();
    const taps: string[] = [];
    await web.start({
      kv: store.kv,
      log: createLogger({ level: 'silent' }),
      onTap: async (tap) => {
        taps.push(tap.key);
        return { outcome: 'submitted', text: 'ok', card: null };
      },
    });
    const refs = await Promise.all(Array.from({ length: 30 }, (_, i) => web.post('busy', card(i))));
    const list = web.routes.find((r) => r.path === '/web/api/rooms/:room/messages')!;
    const tap = web.routes.find((r) => r.path.endsWith('/actions/:action'))!;
    const res = await list.handle({
      method: 'GET',
      path: '',
      query: new URLSearchParams(),
      headers: {},
      rawBody: Buffer.alloc(0),
      params: { room: 'busy' },
    });
    const messages = res.body as Array<{ id: string; case: string }>;
    expect(messages).toHaveLength(30);
    expect(new Set(messages.map((m) => m.id))).toEqual(new Set(refs.map((r) => r.id)));
    expect(JSON.stringify(messages)).not.toContain('"key"');
    const body = Buffer.from(JSON.stringify({ user: { id: 'ann' } }));
    const headers = { 'content-type': 'application/json' };
    const wrongRoom = await tap.handle({
      method: 'POST',
      path: '',
      query: new URLSearchParams(),
      headers,
      rawBody: body,
      params: { room: 'other', id: refs[0]!.id, action: 'approve' },
    });
    expect(wrongRoom.status).toBe(404);
    const ok = await tap.handle({
      method: 'POST',
      path: '',
      query: new URLSearchParams(),
      headers,
      rawBody: body,
      params: { room: 'busy', id: refs[0]!.id, action: 'approve' },
    });
    expect(ok.status).toBe(200);
    expect(taps).toHaveLength(1);
    await store.close();
  });
});
