/** Telegram as the registry sees it (src/adapter-definition.ts). */
import { type PlatformDefinition, webhookResponses } from '../../src/adapter-definition.ts';
import { readTelegramConfig, TELEGRAM_ENV_VARS, type TelegramConfig } from './config.ts';

export const platform: PlatformDefinition<TelegramConfig> = {
  envVars: TELEGRAM_ENV_VARS,
  readConfig: (env) => readTelegramConfig(env),
  create: async (config) => (await import('./index.ts')).createTelegramAdapter(config),
  exampleEnv: {
    TELEGRAM_BOT_TOKEN: '7012345678:AAHk2_mQp9sXvW3yZ8dE-4fGhJkLmNoPqRs',
    TELEGRAM_WEBHOOK_URL: 'https://relay.example/telegram/webhook',
    TELEGRAM_WEBHOOK_SECRET: 'abc_DEF-123',
    TELEGRAM_API_ROOT: 'http://127.0.0.1:9',
  },
  routes: {
    // The webhook's path is the path of TELEGRAM_WEBHOOK_URL.
    'POST *': {
      summary: 'Telegram Bot API webhook (X-Telegram-Bot-Api-Secret-Token)',
      responses: webhookResponses('Wrong or missing secret token.'),
    },
  },
};
