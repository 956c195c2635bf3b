/** The real Telegram adapter in webhook mode against the fake Bot API, as the benchmarks use it. */
import { randomBytes } from 'node:crypto';
import type { UserFromGetMe } from 'grammy/types';
import { createTelegramAdapter, type TelegramAdapter } from '../../platforms/telegram/index.ts';
import type { PaceOptions } from '../../platforms/telegram/pace.ts';

/** No client-side pacing: for benchmarks whose fake has no rate limit (pacing is benchmark 4). */
export const NO_PACE: PaceOptions = {
  perChatIntervalMs: 0,
  groupLimit: 1e9,
  groupWindowMs: 0,
  globalLimit: 1e9,
  globalWindowMs: 0,
};

/** Where the relay mounts the webhook. */
export const WEBHOOK_PATH = '/telegram/webhook';

/** Creates the adapter; `pace` undefined means Telegram's published limits (the production default). */
export function benchTelegramAdapter(
  fake: { apiRoot: string; token: string; botInfo: UserFromGetMe },
  pace: Partial<PaceOptions> | undefined,
  secret = randomBytes(24).toString('base64url'),
): { adapter: TelegramAdapter; secret: string } {
  const adapter = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    webhookUrl: `https://relay.example${WEBHOOK_PATH}`,
    webhookSecret: secret,
    webhookPath: WEBHOOK_PATH,
    ...(pace ? { pace } : {}),
  });
  return { adapter, secret };
}
