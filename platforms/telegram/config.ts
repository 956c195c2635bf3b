/** Telegram settings from the environment, validated; null when the platform is not configured. */
import { z } from 'zod';
import { type EnvDoc, parseEnv, pickEnv } from '../../src/config/env.ts';
import { registerSecret } from '../../src/log.ts';

/** Every environment variable the Telegram adapter reads. */
export const TELEGRAM_ENV_VARS: readonly string[] = [
  'TELEGRAM_BOT_TOKEN',
  'TELEGRAM_WEBHOOK_URL',
  'TELEGRAM_WEBHOOK_SECRET',
  'TELEGRAM_API_ROOT',
];

/** What each variable means, for docs/configuration.md (scripts/config-reference.ts). */
export const TELEGRAM_ENV_DOCS: Record<string, EnvDoc> = {
  TELEGRAM_BOT_TOKEN: { meaning: "the bot's token from @BotFather; setting it turns Telegram on" },
  TELEGRAM_WEBHOOK_URL: {
    meaning:
      "public `https://` URL of the relay's `/telegram/webhook`: webhook mode (else long polling)",
  },
  TELEGRAM_WEBHOOK_SECRET: {
    meaning:
      'the `secret_token` Telegram echoes on every webhook request (required with a webhook URL)',
  },
  TELEGRAM_API_ROOT: {
    meaning: 'root of a self-hosted Bot API server (default `https://api.telegram.org`)',
  },
};

/** Telegram's own rule for setWebhook's secret_token: 1-256 characters of A-Z, a-z, 0-9, _ and -. */
export const TELEGRAM_SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/** How the adapter reaches Telegram and how updates arrive. */
export interface TelegramConfig {
  /** The token from @BotFather ("123456:ABC..."). A secret. */
  botToken: string;
  /** Public HTTPS URL of this relay's webhook route; webhook mode when set, long polling otherwise. */
  webhookUrl?: string;
  /** The secret_token Telegram echoes in X-Telegram-Bot-Api-Secret-Token (webhook mode only). */
  webhookSecret?: string;
  /** Bot API server root without a trailing slash (self-hosted Bot API servers, tests). */
  apiRoot?: string;
}

/** The variables, validated; their meanings are TELEGRAM_ENV_DOCS (docs/configuration.md). */
export const TELEGRAM_ENV_SCHEMA = z
  .object({
    TELEGRAM_BOT_TOKEN: z
      .string()
      .regex(/^\d+:[A-Za-z0-9_-]+$/, 'must look like "<bot id>:<secret>" as @BotFather gives it'),
    TELEGRAM_WEBHOOK_URL: z
      .url({
        protocol: /^https$/,
        error: 'must be an https:// URL (Telegram only calls HTTPS webhooks)',
      })
      .optional(),
    TELEGRAM_WEBHOOK_SECRET: z
      .string()
      .regex(TELEGRAM_SECRET_TOKEN_PATTERN, 'must be 1-256 characters of A-Z, a-z, 0-9, _ and -')
      .optional(),
    TELEGRAM_API_ROOT: z
      .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
      .optional(),
  })
  .superRefine((env, check) => {
    if (env.TELEGRAM_WEBHOOK_URL && !env.TELEGRAM_WEBHOOK_SECRET) {
      check.addIssue({
        code: 'custom',
        path: ['TELEGRAM_WEBHOOK_SECRET'],
        message: 'is required when TELEGRAM_WEBHOOK_URL is set (every webhook request is checked)',
      });
    }
  });

/** Reads the Telegram settings; null when TELEGRAM_BOT_TOKEN is absent. Throws ValidationError. */
export function readTelegramConfig(env: NodeJS.ProcessEnv): TelegramConfig | null {
  const raw = pickEnv(env, TELEGRAM_ENV_VARS);
  if (!raw.TELEGRAM_BOT_TOKEN) return null;
  // Register before validating so that no later message can show them.
  registerSecret(raw.TELEGRAM_BOT_TOKEN);
  registerSecret(raw.TELEGRAM_WEBHOOK_SECRET);
  const env2 = parseEnv(TELEGRAM_ENV_SCHEMA, raw, 'Telegram configuration');
  return {
    botToken: env2.TELEGRAM_BOT_TOKEN,
    ...(env2.TELEGRAM_WEBHOOK_URL ? { webhookUrl: env2.TELEGRAM_WEBHOOK_URL } : {}),
    ...(env2.TELEGRAM_WEBHOOK_SECRET ? { webhookSecret: env2.TELEGRAM_WEBHOOK_SECRET } : {}),
    ...(env2.TELEGRAM_API_ROOT ? { apiRoot: env2.TELEGRAM_API_ROOT.replace(/\/+$/, '') } : {}),
  };
}
