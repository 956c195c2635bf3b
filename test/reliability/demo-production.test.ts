/**
 * Finding 9 (the demo service in production): DEMO defaulted on even with RELAY_API_KEY
 * (unauthenticated writes that fill DATA_DIR), and demo URLs were built from the Host header.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, expect, it } from 'vitest';
import { demoBase } from '../../src/cli/serve.ts';
import { startupWarnings } from '../../src/cli/warnings.ts';
import { readConfig } from '../../src/config/config.ts';
import { mountDemo } from '../../src/demo/mount.ts';
import { createLogger } from '../../src/log.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-demo-prod-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = { RELAY_API_KEY: 'production-api-key-0123456789abcdef' };

it('finding 9 (demo in production): the demo is off by default with an API key, on in the local default', () => {
  expect(readConfig({ DATA_DIR: dir }).demo).toBe(true);
  expect(readConfig({ DATA_DIR: dir, ...key }).demo).toBe(false);
  expect(readConfig({ DATA_DIR: dir, ...key, DEMO: '1' }).demo).toBe(true);
  expect(readConfig({ DATA_DIR: dir, DEMO: '0' }).demo).toBe(false);
});

it('finding 9 (demo in production): demo URLs come from configuration, never from the Host header', async () => {
  for (const [env, base] of [
    [{ PORT: '8787' }, 'http://127.0.0.1:8787/demo'],
    [{ PORT: '8787', PUBLIC_URL: 'https://relay.example.org' }, 'https://relay.example.org/demo'],
  ] as const) {
    const config = readConfig({ DATA_DIR: dir, ...env });
    const app = new Hono();
    const demo = mountDemo(app, {
      dataDir: dir,
      log: createLogger({ level: 'silent' }),
      baseUrl: demoBase(config),
    });
    try {
      const res = await app.request('http://evil.example/demo/api/reviews?type=approval&inline=1', {
        method: 'POST',
        headers: { host: 'evil.example', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(202);
      const body = (await res.json()) as { hitl: Record<string, string> };
      for (const f of ['poll_url', 'review_url', 'submit_url'])
        expect(body.hitl[f]!.startsWith(`${base}/`), f).toBe(true);
      expect(JSON.stringify(body)).not.toContain('evil.example');
    } finally {
      demo.close();
    }
  }
});

it('LOW-DEMO-1: DEMO=1 on a server (API key, or a HOST beyond loopback) is a loud start-up warning', () => {
  const demoWarning = (env: Record<string, string>) =>
    startupWarnings(
      readConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://relay.example', ...env }),
      ['web'],
      'https://relay.example',
    ).filter((w) => w.includes('DEMO=1'));
  const secret = { RELAY_SECRET_KEY: 's'.repeat(32) };
  const [w, ...rest] = demoWarning({ ...key, ...secret, DEMO: '1' });
  expect(rest).toEqual([]);
  expect(w).toMatch(/^DEMO=1 on a server: .*unauthenticated and unlimited/);
  expect(w).toContain('unset DEMO');
  expect(demoWarning({ DEMO: '1', HOST: '0.0.0.0' })).toHaveLength(1);
  expect(demoWarning({ DEMO: '1', HOST: '10.0.0.5' })).toHaveLength(1);
  // The local default (loopback, no key) runs the demo on purpose; a server without it is quiet.
  expect(demoWarning({})).toEqual([]);
  expect(demoWarning({ DEMO: '1', HOST: '127.0.0.1' })).toEqual([]);
  expect(demoWarning({ ...key, ...secret })).toEqual([]);
});
