/**
 * The web chat page waits for its room to change (long-poll): woken by the room's change signal,
 * with no store reads while nothing changes, bounded per client, freed when the client goes away.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebAdapter, WEB_WAITS_PER_CLIENT } from '../../platforms/web/index.ts';
import type {
  AdapterContext,
  InboundRequest,
  InboundResponse,
  PlatformAdapter,
} from '../../src/adapter.ts';
import { createAdapterSignals } from '../../src/adapter-signals.ts';
import { createLogger } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import { MemoryKeyValue } from '../../src/store/memory-kv.ts';

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

/** A key-value store that counts the reads made through it. */
class CountingKv extends MemoryKeyValue {
  reads = 0;
  override get(key: string) {
    this.reads++;
    return super.get(key);
  }
  override list(prefix: string, limit: number) {
    this.reads++;
    return super.list(prefix, limit);
  }
}

const log = createLogger({ level: 'silent' });

async function started(events = new EventEmitter()) {
  const kv = new CountingKv();
  const web = createWebAdapter();
  const ctx: AdapterContext = {
    kv,
    log,
    onTap: async () => ({ outcome: 'submitted', text: 'ok', card: null }),
    signals: createAdapterSignals({ events, missedEvent: 'missed', log }),
  };
  await web.start(ctx);
  return { web, kv, events };
}

function list(
  web: PlatformAdapter,
  room: string,
  o: {
    etag?: string;
    wait?: number;
    client?: string;
    signal?: AbortSignal;
    /** The client the server resolved (behind a trusted proxy: the one it forwarded for). */
    clientAddress?: string;
  } = {},
): Promise<InboundResponse> {
  const route = web.routes.find((r) => r.path === '/web/api/rooms/:room/messages')!;
  const req: InboundRequest = {
    method: 'GET',
    path: `/web/api/rooms/${room}/messages`,
    query: new URLSearchParams(o.wait ? { wait: String(o.wait) } : {}),
    headers: {
      ...(o.etag ? { 'if-none-match': o.etag } : {}),
    },
    rawBody: Buffer.alloc(0),
    params: { room },
    remoteAddress: o.client ?? '127.0.0.1',
    ...(o.clientAddress ? { clientAddress: o.clientAddress } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  };
  return route.handle(req);
}

const etagOf = (res: InboundResponse) => res.headers?.etag ?? '';

afterEach(() => {
  vi.useRealTimers();
});

describe('web chat: waiting for a room', () => {
  it('makes no store reads while nothing changes, answers 304 at the end of the wait', async () => {
    vi.useFakeTimers();
    const { web, kv } = await started();
    await web.post('quiet', card(1));
    const etag = etagOf(await list(web, 'quiet'));
    const before = kv.reads;
    const waiting = list(web, 'quiet', { etag, wait: 30 });
    await vi.advanceTimersByTimeAsync(0);
    const afterFirstRead = kv.reads;
    expect(afterFirstRead - before).toBe(1); // the room's version, once
    await vi.advanceTimersByTimeAsync(29_000);
    expect(kv.reads).toBe(afterFirstRead);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await waiting).toMatchObject({ status: 304, headers: { etag } });
    expect(kv.reads).toBe(afterFirstRead);
  });

  it('is woken by a post in its room, and only by its room', async () => {
    vi.useFakeTimers();
    const { web, kv } = await started();
    const etag = etagOf(await list(web, 'room-a'));
    let answered: InboundResponse | undefined;
    void list(web, 'room-a', { etag, wait: 30 }).then((r) => (answered = r));
    await vi.advanceTimersByTimeAsync(0);
    const reads = kv.reads;
    await web.post('room-b', card(2));
    await vi.advanceTimersByTimeAsync(0);
    expect(answered).toBeUndefined();
    const readsAfterB = kv.reads;
    const ref = await web.post('room-a', card(3));
    await vi.advanceTimersByTimeAsync(0);
    expect(answered?.status).toBe(200);
    expect((answered?.body as Array<{ id: string }> | undefined)?.map((m) => m.id)).toEqual([
      ref.id,
    ]);
    // room-b's post read only its own count hint: the waiter on room-a read nothing.
    expect(readsAfterB - reads).toBe(1);
  });

  it('is woken by a change another replica signals (the shared change channel)', async () => {
    vi.useFakeTimers();
    const events = new EventEmitter();
    const a = await started(events);
    // Replica B: the same key-value store, its own adapter, the same change channel.
    const b = createWebAdapter();
    await b.start({
      kv: a.kv,
      log,
      onTap: async () => ({ outcome: 'submitted', text: 'ok', card: null }),
      signals: createAdapterSignals({ events, missedEvent: 'missed', log }),
    });
    const etag = etagOf(await list(b, 'shared'));
    const waiting = list(b, 'shared', { etag, wait: 30 });
    await vi.advanceTimersByTimeAsync(0);
    await a.web.post('shared', card(4));
    await vi.advanceTimersByTimeAsync(0);
    expect((await waiting).status).toBe(200);
  });

  it('is woken when changes may have been missed, and re-reads the version once', async () => {
    vi.useFakeTimers();
    const { web, kv, events } = await started();
    const etag = etagOf(await list(web, 'lost'));
    let answered: InboundResponse | undefined;
    void list(web, 'lost', { etag, wait: 30 }).then((r) => (answered = r));
    await vi.advanceTimersByTimeAsync(0);
    const reads = kv.reads;
    events.emit('missed');
    await vi.advanceTimersByTimeAsync(0);
    expect(kv.reads - reads).toBe(1);
    expect(answered).toBeUndefined(); // nothing changed after all: it goes on waiting
    await vi.advanceTimersByTimeAsync(30_000);
    expect(answered?.status).toBe(304);
  });

  it('holds at most WEB_WAITS_PER_CLIENT waits per client and frees the wait of a client that left', async () => {
    const { web } = await started();
    const etag = etagOf(await list(web, 'busy'));
    const leaving = Array.from({ length: WEB_WAITS_PER_CLIENT }, () => new AbortController());
    const held = leaving.map((c) =>
      list(web, 'busy', { etag, wait: 30, client: '10.0.0.1', signal: c.signal }),
    );
    const refused = await list(web, 'busy', { etag, wait: 30, client: '10.0.0.1' });
    expect(refused).toMatchObject({ status: 429, body: { error: 'too_many_waits' } });
    expect(refused.headers?.['retry-after']).toBe('5');
    // Another client is not affected; a wait without ?wait is never refused.
    const other = new AbortController();
    const second = list(web, 'busy', { etag, wait: 30, client: '10.0.0.2', signal: other.signal });
    expect((await list(web, 'busy', { etag, client: '10.0.0.1' })).status).toBe(304);
    // Behind a trusted proxy, pages are told apart by the client the server resolved.
    const behind = new AbortController();
    const proxied = list(web, 'busy', {
      etag,
      wait: 30,
      client: '10.0.0.1',
      signal: behind.signal,
      clientAddress: '192.0.2.7',
    });
    behind.abort();
    expect((await proxied).status).toBe(304);
    // The clients go away: their waits end at once and make room.
    for (const c of [...leaving, other]) c.abort();
    for (const res of await Promise.all([...held, second])) expect(res.status).toBe(304);
    const again = new AbortController();
    const admitted = list(web, 'busy', {
      etag,
      wait: 30,
      client: '10.0.0.1',
      signal: again.signal,
    });
    again.abort();
    expect((await admitted).status).toBe(304);
  });

  it('refuses a wait that is not a number of seconds', async () => {
    const { web } = await started();
    expect(await list(web, 'x', { wait: -1 })).toMatchObject({ status: 400 });
  });
});
