import { describe, expect, it } from 'vitest';
import { readSlackConfig, SLACK_ENV_VARS } from '../../../platforms/slack/config.ts';
import { ValidationError } from '../../../src/errors.ts';
import { scrub } from '../../../src/log.ts';

const token = 'xoxb-1111-2222-fakeBotTokenForConfig';
const secret = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const appToken = 'xapp-1-A111-222-fakeAppTokenForConfig';

function failure(env: NodeJS.ProcessEnv): ValidationError {
  try {
    readSlackConfig(env);
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('slack config', () => {
  it('is off without SLACK_* variables', () => {
    expect(readSlackConfig({})).toBeNull();
    expect(readSlackConfig({ SLACK_BOT_TOKEN: '  ' })).toBeNull();
  });

  it('reads HTTP mode and Socket Mode', () => {
    expect(readSlackConfig({ SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: secret })).toEqual({
      botToken: token,
      signingSecret: secret,
      mode: 'http',
    });
    expect(
      readSlackConfig({
        SLACK_BOT_TOKEN: token,
        SLACK_APP_TOKEN: appToken,
        SLACK_API_URL: 'http://127.0.0.1:9/api/',
      }),
    ).toEqual({ botToken: token, appToken, apiUrl: 'http://127.0.0.1:9/api/', mode: 'socket' });
  });

  it('names the variable that is wrong', () => {
    expect(failure({ SLACK_BOT_TOKEN: token }).details[0]?.path).toBe('SLACK_SIGNING_SECRET');
    expect(
      failure({ SLACK_BOT_TOKEN: 'xoxp-user', SLACK_SIGNING_SECRET: secret }).details[0]?.path,
    ).toBe('SLACK_BOT_TOKEN');
    expect(
      failure({ SLACK_BOT_TOKEN: token, SLACK_APP_TOKEN: 'nope-123456' }).details[0]?.path,
    ).toBe('SLACK_APP_TOKEN');
    expect(
      failure({ SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: secret, SLACK_API_URL: 'ftp://x' })
        .details[0]?.path,
    ).toBe('SLACK_API_URL');
    expect(failure({ SLACK_SIGNING_SECRET: secret }).details[0]?.path).toBe('SLACK_BOT_TOKEN');
  });

  it('registers every secret it reads and lists every variable', () => {
    readSlackConfig({
      SLACK_BOT_TOKEN: token,
      SLACK_SIGNING_SECRET: secret,
      SLACK_APP_TOKEN: appToken,
    });
    expect(scrub(`${token} ${secret} ${appToken}`)).toBe('[REDACTED] [REDACTED] [REDACTED]');
    expect([...SLACK_ENV_VARS].sort()).toEqual([
      'SLACK_API_URL',
      'SLACK_APP_TOKEN',
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
    ]);
  });
});
