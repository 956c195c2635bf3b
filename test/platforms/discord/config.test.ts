import { describe, expect, it } from 'vitest';
import { DISCORD_ENV_VARS, readDiscordConfig } from '../../../platforms/discord/config.ts';
import { ValidationError } from '../../../src/errors.ts';
import { scrub } from '../../../src/log.ts';
import { TEST_DISCORD_APPLICATION_ID, TEST_DISCORD_TOKEN } from './harness.ts';

const KEY = 'a'.repeat(64);

describe('readDiscordConfig', () => {
  it('is null without DISCORD_TOKEN', () => {
    expect(readDiscordConfig({ DISCORD_APPLICATION_ID: TEST_DISCORD_APPLICATION_ID })).toBeNull();
  });

  it('chooses HTTP interactions mode when the public key is set, the gateway otherwise', () => {
    const base = {
      DISCORD_TOKEN: TEST_DISCORD_TOKEN,
      DISCORD_APPLICATION_ID: TEST_DISCORD_APPLICATION_ID,
    };
    expect(
      readDiscordConfig({
        ...base,
        DISCORD_PUBLIC_KEY: KEY.toUpperCase(),
        DISCORD_API_URL: 'http://127.0.0.1:9/api/',
      }),
    ).toEqual({
      token: TEST_DISCORD_TOKEN,
      applicationId: TEST_DISCORD_APPLICATION_ID,
      publicKey: KEY,
      apiUrl: 'http://127.0.0.1:9/api',
      mode: 'http',
    });
    expect(readDiscordConfig(base)?.mode).toBe('gateway');
  });

  it('names the variable that is wrong and never shows the token', () => {
    const read = (env: NodeJS.ProcessEnv) => {
      try {
        readDiscordConfig(env);
      } catch (error) {
        return error as ValidationError;
      }
      throw new Error('expected a ValidationError');
    };
    const missing = read({ DISCORD_TOKEN: TEST_DISCORD_TOKEN });
    expect(missing).toBeInstanceOf(ValidationError);
    expect(missing.details[0]?.path).toBe('DISCORD_APPLICATION_ID');
    const badKey = read({
      DISCORD_TOKEN: TEST_DISCORD_TOKEN,
      DISCORD_APPLICATION_ID: '1',
      DISCORD_PUBLIC_KEY: 'xyz',
    });
    expect(badKey.details[0]?.path).toBe('DISCORD_PUBLIC_KEY');
    const badToken = read({ DISCORD_TOKEN: 'not a token at all', DISCORD_APPLICATION_ID: '1' });
    expect(badToken.details[0]?.path).toBe('DISCORD_TOKEN');
    expect(badToken.message).not.toContain('not a token at all');
    expect(scrub(`x ${TEST_DISCORD_TOKEN} y`)).not.toContain(TEST_DISCORD_TOKEN);
  });

  it('lists every variable it reads', () => {
    expect([...DISCORD_ENV_VARS].sort()).toEqual([
      'DISCORD_API_URL',
      'DISCORD_APPLICATION_ID',
      'DISCORD_PUBLIC_KEY',
      'DISCORD_TOKEN',
    ]);
  });
});
