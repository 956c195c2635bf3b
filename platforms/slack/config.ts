/** Slack settings from the environment, validated; null when the platform is not configured. */
import { z } from 'zod';
import { type EnvDoc, parseEnv, pickEnv } from '../../src/config/env.ts';
import { ValidationError } from '../../src/errors.ts';
import { registerSecret } from '../../src/log.ts';

/** Every environment variable the Slack adapter reads. */
export const SLACK_ENV_VARS: readonly string[] = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'SLACK_API_URL',
];

/** What each variable means, for docs/configuration.md (scripts/config-reference.ts). */
export const SLACK_ENV_DOCS: Record<string, EnvDoc> = {
  SLACK_BOT_TOKEN: { meaning: 'the bot token (`xoxb-...`); setting it turns Slack on' },
  SLACK_SIGNING_SECRET: {
    meaning: 'checks every request Slack sends to `/slack/events` (HTTP mode)',
  },
  SLACK_APP_TOKEN: { meaning: 'app-level token (`xapp-...`): selects Socket Mode' },
  SLACK_API_URL: { meaning: "Web API base URL (default Slack's; tests point it at a fake)" },
};

/** How interactions reach the relay: signed HTTP requests (replicas) or one Socket Mode connection. */
export type SlackMode = 'http' | 'socket';

/** How the adapter reaches Slack and how interactions arrive. */
export interface SlackConfig {
  /** The bot token "xoxb-..." from OAuth & Permissions. A secret. */
  botToken: string;
  /** The app's Signing Secret (Basic Information); required in HTTP mode. A secret. */
  signingSecret?: string;
  /** An app-level token "xapp-..." with connections:write; Socket Mode when set. A secret. */
  appToken?: string;
  /** Web API base URL, e.g. "http://127.0.0.1:PORT/api/" (tests); Slack's own when unset. */
  apiUrl?: string;
  mode: SlackMode;
  /** The bot's ids when already known (tests); otherwise auth.test asks Slack at start. */
  botId?: string;
  botUserId?: string;
}

/** The variables, validated; their meanings are SLACK_ENV_DOCS (docs/configuration.md). */
export const SLACK_ENV_SCHEMA = z
  .object({
    SLACK_BOT_TOKEN: z.string().startsWith('xoxb-', 'must be a bot token ("xoxb-...")'),
    SLACK_SIGNING_SECRET: z
      .string()
      .regex(/^[A-Za-z0-9]{8,}$/, 'must be the Signing Secret from Basic Information')
      .optional(),
    SLACK_APP_TOKEN: z
      .string()
      .startsWith('xapp-', 'must be an app-level token ("xapp-...") with connections:write')
      .optional(),
    SLACK_API_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).optional(),
  })
  .superRefine((env, check) => {
    if (!env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
      check.addIssue({
        code: 'custom',
        path: ['SLACK_SIGNING_SECRET'],
        message:
          'is required for HTTP mode (every interaction is signed); set SLACK_APP_TOKEN for Socket Mode instead',
      });
    }
  });

/** Reads the Slack settings; null when no SLACK_* variable is set. Throws ValidationError. */
export function readSlackConfig(env: NodeJS.ProcessEnv): SlackConfig | null {
  const raw = pickEnv(env, SLACK_ENV_VARS);
  // Register before validating so that no later message can show them.
  registerSecret(raw.SLACK_BOT_TOKEN);
  registerSecret(raw.SLACK_SIGNING_SECRET);
  registerSecret(raw.SLACK_APP_TOKEN);
  if (!raw.SLACK_BOT_TOKEN) {
    if (!raw.SLACK_SIGNING_SECRET && !raw.SLACK_APP_TOKEN) return null;
    throw new ValidationError('invalid_config', 'Slack configuration', [
      { path: 'SLACK_BOT_TOKEN', message: 'is required when other SLACK_* variables are set' },
    ]);
  }
  const data = parseEnv(SLACK_ENV_SCHEMA, raw, 'Slack configuration');
  return {
    botToken: data.SLACK_BOT_TOKEN,
    ...(data.SLACK_SIGNING_SECRET ? { signingSecret: data.SLACK_SIGNING_SECRET } : {}),
    ...(data.SLACK_APP_TOKEN ? { appToken: data.SLACK_APP_TOKEN } : {}),
    ...(data.SLACK_API_URL ? { apiUrl: data.SLACK_API_URL } : {}),
    mode: data.SLACK_APP_TOKEN ? 'socket' : 'http',
  };
}
