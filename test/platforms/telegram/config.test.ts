import { describe, expect, it } from 'vitest';
import { readTelegramConfig, TELEGRAM_ENV_VARS } from '../../../platforms/telegram/config.ts';
import { ValidationError } from '../../../src/errors.ts';
import { scrub } from '../../../src/log.ts';

const TOKEN = '7012345678:AAHk2_mQp9sXvW3yZ8dE-4fGhJkLmNoPqRs';

function failure(env: NodeJS.ProcessEnv): ValidationError {
  try {
    readTelegramConfig(env);
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('telegram config', () => {
  it('is off without a token', () => {
    expect(readTelegramConfig({})).toBeNull();
    expect(readTelegramConfig({ TELEGRAM_BOT_TOKEN: '  ' })).toBeNull();
  });

  it('reads long polling mode from the token alone', () => {
    expect(readTelegramConfig({ TELEGRAM_BOT_TOKEN: TOKEN })).toEqual({ botToken: TOKEN });
  });

  it('reads webhook mode and an API root without its trailing slash', () => {
    expect(
      readTelegramConfig({
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_WEBHOOK_URL: 'https://relay.example/telegram/webhook',
        TELEGRAM_WEBHOOK_SECRET: 'abc_DEF-123',
        TELEGRAM_API_ROOT: 'http://127.0.0.1:8081/',
      }),
    ).toEqual({
      botToken: TOKEN,
      webhookUrl: 'https://relay.example/telegram/webhook',
      webhookSecret: 'abc_DEF-123',
      apiRoot: 'http://127.0.0.1:8081',
    });
  });

  it('names the variable that is wrong, never its value', () => {
    const bad = failure({ TELEGRAM_BOT_TOKEN: 'not a token with secret words' });
    expect(bad.details[0]?.path).toBe('TELEGRAM_BOT_TOKEN');
    expect(bad.message).not.toContain('secret words');

    const noSecret = failure({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_URL: 'https://relay.example/tg',
    });
    expect(noSecret.details.map((d) => d.path)).toEqual(['TELEGRAM_WEBHOOK_SECRET']);

    const badSecret = failure({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_URL: 'https://relay.example/tg',
      TELEGRAM_WEBHOOK_SECRET: 'has spaces and !',
    });
    expect(badSecret.details.map((d) => d.path)).toEqual(['TELEGRAM_WEBHOOK_SECRET']);

    const longSecret = failure({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_URL: 'https://relay.example/tg',
      TELEGRAM_WEBHOOK_SECRET: 'a'.repeat(257),
    });
    expect(longSecret.details.map((d) => d.path)).toEqual(['TELEGRAM_WEBHOOK_SECRET']);

    const http = failure({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_URL: 'http://relay.example/tg',
      TELEGRAM_WEBHOOK_SECRET: 'abc',
    });
    expect(http.details.map((d) => d.path)).toEqual(['TELEGRAM_WEBHOOK_URL']);

    const root = failure({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: 'ftp://x' });
    expect(root.details.map((d) => d.path)).toEqual(['TELEGRAM_API_ROOT']);
  });

  it('registers the token and the webhook secret so no log line shows them', () => {
    readTelegramConfig({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_URL: 'https://relay.example/tg',
      TELEGRAM_WEBHOOK_SECRET: 'webhookSecretValue_1',
    });
    expect(scrub(`token ${TOKEN} secret webhookSecretValue_1`)).toBe(
      'token [REDACTED] secret [REDACTED]',
    );
  });

  it('lists every variable it reads', () => {
    expect([...TELEGRAM_ENV_VARS].sort()).toEqual([
      'TELEGRAM_API_ROOT',
      'TELEGRAM_BOT_TOKEN',
      'TELEGRAM_WEBHOOK_SECRET',
      'TELEGRAM_WEBHOOK_URL',
    ]);
  });
});
