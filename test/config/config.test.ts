import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config/config.ts';
import { ValidationError } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';
import { deriveNotifySecret } from '../../src/protocol/notify-signature.ts';

function detailsOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.details;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('readConfig', () => {
  it('has the local defaults: port 8787, loopback only, plain HTTP to loopback, demo and web chat on', () => {
    const c = readConfig({});
    expect(c).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      dataDir: './data',
      allowHttpLoopback: true,
      demo: true,
      webChat: true,
      pollMinMs: 30_000,
      pollMaxMs: 300_000,
    });
  });

  it('listens everywhere and wants HTTPS once an API key is set', () => {
    const c = readConfig({ RELAY_API_KEY: 'k'.repeat(20) });
    expect(c).toMatchObject({ host: '0.0.0.0', allowHttpLoopback: false });
  });

  it('CLAIM_SECONDS outlasts a submit: the queue wait plus SUBMIT_TIMEOUT_SECONDS plus 5 s', () => {
    expect(readConfig({}).claimMs).toBe(60_000);
    expect(readConfig({ CLAIM_SECONDS: '35' }).claimMs).toBe(35_000);
    const [issue] = detailsOf(() => readConfig({ CLAIM_SECONDS: '34' }));
    expect(issue).toEqual({
      path: 'CLAIM_SECONDS',
      message: "must be at least 35 (the submit queue's 20 s + SUBMIT_TIMEOUT_SECONDS + 5 s)",
    });
    expect(
      detailsOf(() => readConfig({ CLAIM_SECONDS: '40', SUBMIT_TIMEOUT_SECONDS: '20' }))[0]!.path,
    ).toBe('CLAIM_SECONDS');
  });

  it('names the variable that is wrong, and treats empty values as unset', () => {
    expect(detailsOf(() => readConfig({ PORT: 'eighty' }))[0]!.path).toBe('PORT');
    expect(detailsOf(() => readConfig({ RELAY_API_KEY: 'short' }))[0]!.path).toBe('RELAY_API_KEY');
    expect(detailsOf(() => readConfig({ DATABASE_URL: 'mysql://x' }))[0]!.path).toBe(
      'DATABASE_URL',
    );
    expect(
      detailsOf(() =>
        readConfig({ POLL_INTERVAL_MIN_SECONDS: '60', POLL_INTERVAL_MAX_SECONDS: '30' }),
      )[0]!.path,
    ).toBe('POLL_INTERVAL_MAX_SECONDS');
    expect(
      detailsOf(() =>
        readConfig({ NOTIFY_RETRY_MIN_SECONDS: '60', NOTIFY_RETRY_MAX_SECONDS: '30' }),
      ),
    ).toEqual([
      { path: 'NOTIFY_RETRY_MAX_SECONDS', message: 'must not be below NOTIFY_RETRY_MIN_SECONDS' },
    ]);
    expect(readConfig({ RELAY_API_KEY: '  ' }).apiKey).toBeUndefined();
  });

  it('reads routes, allowlists and callback secrets from RELAY_CONFIG, and names bad paths in it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const good = join(dir, 'good.json');
    writeFileSync(
      good,
      JSON.stringify({
        routes: { ops: { targets: ['web:a', 'slack:C1'], allow: ['U1'] } },
        allow: { 'web:a': ['ann'] },
        callback_secrets: { 'https://svc.example/x': 's'.repeat(20) },
      }),
    );
    const c = readConfig({ RELAY_CONFIG: good });
    expect(c.routes.ops!.targets).toEqual(['web:a', 'slack:C1']);
    expect(c.allow['web:a']).toEqual(['ann']);
    expect(c.callbackSecrets).toEqual({ 'https://svc.example': 's'.repeat(20) });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ routes: { ops: { targets: ['nocolon'] } } }));
    expect(detailsOf(() => readConfig({ RELAY_CONFIG: bad }))[0]!.path).toBe(
      `${bad}.routes.ops.targets[0]`,
    );
    expect(detailsOf(() => readConfig({ RELAY_CONFIG: join(dir, 'missing.json') }))[0]!.path).toBe(
      'RELAY_CONFIG',
    );
  });

  it('signs notify deliveries with RELAY_NOTIFY_SECRET, else a secret derived from a key, and keeps every secret out of logs', () => {
    expect(readConfig({}).notify).toEqual({
      secret: undefined,
      retryMinMs: 5_000,
      retryMaxMs: 3_600_000,
      maxAttempts: 20,
      timeoutMs: 10_000,
    });
    const apiKey = 'config-test-api-key-0001';
    expect(readConfig({ RELAY_API_KEY: apiKey }).notify?.secret).toBe(deriveNotifySecret(apiKey));
    const secretKey = 'config-test-secret-key-0002';
    expect(readConfig({ RELAY_SECRET_KEY: secretKey }).notify?.secret).toBe(
      deriveNotifySecret(secretKey),
    );
    const notify = 'config-test-notify-secret-0003';
    expect(readConfig({ RELAY_API_KEY: apiKey, RELAY_NOTIFY_SECRET: notify }).notify?.secret).toBe(
      notify,
    );
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'secrets.json');
    const callback = 'config-test-callback-secret-0004';
    writeFileSync(file, JSON.stringify({ callback_secrets: { 'https://svc.example': callback } }));
    const chat = 'config-test-web-chat-token-0005';
    readConfig({ RELAY_CONFIG: file, WEB_CHAT_TOKEN: chat });
    for (const secret of [apiKey, deriveNotifySecret(apiKey), secretKey, notify, callback, chat])
      expect(scrub(`line with ${secret} in it`)).toBe('line with [REDACTED] in it');
  });
});
