/**
 * One error type, one writer: routes throw ApiError and app.onError writes `{ error, message,
 * details? }`. And why bearer auth is the relay's own middleware, not hono/bearer-auth.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config/config.ts';
import { ValidationError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay } from '../../src/relay.ts';
import { ApiError, apiErrorHandler } from '../../src/server/api-error.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A Hono app whose routes throw, answered by the relay's error handler. */
function throwing() {
  const lines: string[] = [];
  const log = createLogger({ level: 'warn', destination: { write: (l: string) => lines.push(l) } });
  const app = new Hono();
  app.get('/api', () => {
    throw new ApiError(409, 'busy', 'retry in a moment', [{ path: 'x', message: 'y' }], {
      headers: { 'retry-after': '1' },
      fields: { id: 'hc_1' },
    });
  });
  app.get('/validation', () => {
    throw new ValidationError('invalid_request', 'invalid request', [
      { path: 'target', message: 'is required' },
    ]);
  });
  app.get('/bug', () => {
    throw new Error('secret-token-in-a-bug');
  });
  app.onError(apiErrorHandler(log));
  return { app, lines };
}

describe('ApiError and the one error handler', () => {
  it('writes status, headers and { error, message, ...fields, details } in that order', async () => {
    const res = await throwing().app.request('/api');
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.text()).toBe(
      '{"error":"busy","message":"retry in a moment","id":"hc_1","details":[{"path":"x","message":"y"}]}',
    );
  });

  it('a ValidationError is a 400 with its issues; anything else a 500 that names nothing', async () => {
    const { app, lines } = throwing();
    const bad = await app.request('/validation');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: 'invalid_request',
      message: 'invalid request: target is required',
      details: [{ path: 'target', message: 'is required' }],
    });
    const bug = await app.request('/bug');
    expect(bug.status).toBe(500);
    expect(await bug.text()).toBe('{"error":"internal","message":"internal error"}');
    expect(lines.join('')).toContain('request failed');
  });
});

describe('bearer auth: the relay’s own middleware, and why not hono/bearer-auth', () => {
  // RELAY_API_KEY takes any 16+ characters; this one has characters outside RFC 6750's token68.
  const key = 'a key, with spaces & symbols!';
  const relay = () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hitl-auth-'));
    dirs.push(dataDir);
    const config = readConfig({ DATA_DIR: dataDir, PORT: '0', RELAY_API_KEY: key });
    return createRelay({ config, adapters: [], log: createLogger({ level: 'silent' }) });
  };
  const honos = new Hono().use('*', bearerAuth({ token: key })).get('/v1/cases', (c) => c.json({}));

  it('a key the config accepts works with the relay; hono/bearer-auth refuses it (400)', async () => {
    const r = relay();
    try {
      const headers = { authorization: `Bearer ${key}` };
      expect((await r.app.request('/v1/cases', { headers })).status).toBe(200);
      expect((await honos.request('/v1/cases', { headers })).status).toBe(400);
    } finally {
      await r.services.store.close();
    }
  });

  it('a malformed Authorization header is the documented 401, where hono/bearer-auth answers 400', async () => {
    const r = relay();
    try {
      const headers = { authorization: 'Basic dXNlcjpwYXNz' };
      const res = await r.app.request('/v1/cases', { headers });
      expect(res.status).toBe(401);
      expect(await res.text()).toBe(
        '{"error":"unauthorized","message":"send Authorization: Bearer <RELAY_API_KEY>"}',
      );
      expect((await honos.request('/v1/cases', { headers })).status).toBe(400);
    } finally {
      await r.services.store.close();
    }
  });
});
