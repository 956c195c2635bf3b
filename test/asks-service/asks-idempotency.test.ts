/**
 * `Idempotency-Key` on POST /v1/asks over real HTTP: a retry with the same key and body gets the
 * same 202 hitl object and no second card; the same key with another body is refused (422); a key
 * whose request failed is free again; keys expire after IDEMPOTENCY_TTL_MS (fake clock); and
 * neither the key nor the submit token is written to the log.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { IDEMPOTENCY_TTL_MS, IdempotencyKey } from '../../src/asks-service/idempotency.ts';
import { RelayClient } from '../../src/client/relay-client.ts';
import { MemoryKeyValue } from '../../src/store/memory-kv.ts';
import { KINDS } from '../asks/fixtures.ts';
import { logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { schemaValidator } from '../helpers/spec.ts';

let relay: RelayHandle;
let clock = Date.now();
const validHitl = schemaValidator('v0.9/hitl-object.schema.json');

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()], now: () => clock });
});
afterAll(async () => {
  await relay?.stop();
});

async function ask(key: string | null, body: unknown, raw?: string) {
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key !== null ? { 'idempotency-key': key } : {}),
    },
    body: raw ?? JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function cardsIn(room: string): Promise<number> {
  const res = await request(`${relay.url}/web/api/rooms/${room}/messages`);
  const list = (await res.body.json()) as Array<{ case?: unknown }>;
  return list.filter((m) => m.case).length;
}

const body = (room: string, prompt = 'Which environment?') => ({
  target: `web:${room}`,
  content: { ...KINDS['decision.single'].content, prompt },
  expires_in: 30 * 86_400,
  labels: { run: 'nightly', step: '3' },
});

describe('Idempotency-Key on POST /v1/asks', () => {
  it('same key and body: the same 202 hitl object, one case, one card', {
    tags: ['corpus'],
  }, async () => {
    const key = 'agent-run-41:step-3';
    const first = await ask(key, body('idem-same'));
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body written with its keys in another order is the same request.
    const b = body('idem-same');
    const reordered = JSON.stringify({
      labels: { step: '3', run: 'nightly' },
      expires_in: b.expires_in,
      content: b.content,
      target: b.target,
    });
    const again = await ask(key, null, reordered);
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['retry-after']).toBe('30');
    expect(again.body.hitl).toEqual(first.body.hitl);
    expect(validHitl(again.body.hitl), JSON.stringify(validHitl.errors)).toBe(true);
    expect(again.body.message).toBe(first.body.message);
    expect(again.body.relay.id).toBe(first.body.relay.id);
    expect(again.body.relay).toMatchObject({ kind: 'decision.single', status: 'pending' });
    expect(await cardsIn('idem-same')).toBe(1);
    // Neither the key nor the token is written to the log.
    const log = logLines.join('\n');
    expect(log).not.toContain(key);
    expect(log).not.toContain(first.body.hitl.submit_token);
  });

  it('same key, another body: 422 with a clear error and nothing created', async () => {
    const key = 'reused-key-1';
    expect((await ask(key, body('idem-conflict'))).status).toBe(202);
    const other = await ask(key, body('idem-conflict', 'Which region?'));
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: 'idempotency_key_reused' });
    expect(other.body.message).toMatch(/different request body/);
    expect(await cardsIn('idem-conflict')).toBe(1);
  });

  it('a key whose request was refused is free for the corrected request', async () => {
    const key = 'fix-and-retry';
    const bad = await ask(key, { ...body('idem-fix'), content: { type: 'decision' } });
    expect(bad.status).toBe(400);
    // The released key lapses at once (TTL 1 ms): the frozen test clock moves past it.
    clock += 2;
    const good = await ask(key, body('idem-fix'));
    expect(good.status, JSON.stringify(good.body)).toBe(202);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses a key that is not 1-255 printable ASCII characters', async () => {
    for (const key of ['', 'x'.repeat(256), 'with space']) {
      const r = await ask(key, body('idem-badkey'));
      expect(r.status, key).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_idempotency_key' });
    }
    expect(await cardsIn('idem-badkey')).toBe(0);
  });

  it('the TypeScript client sends it: asking again with the key returns the same ask', async () => {
    const client = new RelayClient({ relayUrl: relay.url });
    const content = KINDS['context.confirm'].content as any;
    const o = { target: 'web:idem-client', idempotencyKey: 'client-key-1', timeoutMs: 0 };
    const first = await client.ask(content, o);
    const again = await client.ask(content, o);
    expect(first.status).toBe('pending');
    expect(again.id).toBe(first.id);
    expect(await cardsIn('idem-client')).toBe(1);
    await expect(client.ask(content, { ...o, labels: { other: 'body' } })).rejects.toMatchObject({
      status: 422,
      code: 'idempotency_key_reused',
    });
  });

  it('a key expires: after IDEMPOTENCY_TTL_MS the same key asks anew', async () => {
    const key = 'expiring-key';
    const first = await ask(key, body('idem-expiry'));
    clock += IDEMPOTENCY_TTL_MS - 60_000;
    expect((await ask(key, body('idem-expiry'))).body.relay.id).toBe(first.body.relay.id);
    clock += 120_000;
    const later = await ask(key, body('idem-expiry', 'Another question'));
    expect(later.status, JSON.stringify(later.body)).toBe(202);
    expect(later.body.relay.id).not.toBe(first.body.relay.id);
  });
});

describe('IdempotencyKey', () => {
  it('new, then in progress until settled, then replay; another body conflicts; release frees it', async () => {
    let t = 1_000;
    const kv = new MemoryKeyValue(() => t);
    const written: string[] = [];
    const set = kv.set.bind(kv);
    kv.set = async (k, v, ttl) => {
      written.push(`${k}=${v}`);
      await set(k, v, ttl);
    };
    const first = new IdempotencyKey(kv, 'key-one', { a: 1, b: [1, 2] });
    const again = new IdempotencyKey(kv, 'key-one', { b: [1, 2], a: 1 });
    const other = new IdempotencyKey(kv, 'key-one', { a: 2 });
    expect(await first.claim()).toEqual({ kind: 'new' });
    expect(await again.claim()).toEqual({ kind: 'in_progress' });
    expect(await other.claim()).toEqual({ kind: 'conflict' });
    await first.settle('case-1');
    expect(await again.claim()).toEqual({ kind: 'replay', id: 'case-1' });
    // The store holds a hash of the key and of the body, never either itself.
    expect(written.join('\n')).not.toContain('key-one');
    const lone = new IdempotencyKey(kv, 'key-two', {});
    expect(await lone.claim()).toEqual({ kind: 'new' });
    await lone.release();
    t += 2;
    expect(await new IdempotencyKey(kv, 'key-two', { x: 1 }).claim()).toEqual({ kind: 'new' });
    // A pending claim lapses (a crashed first request frees its key).
    const crashed = new IdempotencyKey(kv, 'key-three', {});
    expect(await crashed.claim()).toEqual({ kind: 'new' });
    t += 121_000;
    expect(await new IdempotencyKey(kv, 'key-three', {}).claim()).toEqual({ kind: 'new' });
  });
});
