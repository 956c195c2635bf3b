/** The webhook route: Telegram POSTs each update here with the secret_token header. */
import type { Update } from 'grammy/types';
import type { HttpRoute, InboundRequest, InboundResponse } from '../../src/adapter.ts';
import type { Logger } from '../../src/log.ts';
import { TELEGRAM_SECRET_HEADER, verifySecretToken } from './verify.ts';

/** Where the route is mounted unless configured otherwise. */
export const TELEGRAM_DEFAULT_WEBHOOK_PATH = '/telegram/webhook';

/** What the route needs from the adapter. */
export interface WebhookDeps {
  path: string;
  secret: string;
  /** Handles one update (de-duplication included); throws when the adapter is not running. */
  handle(update: Update): Promise<void>;
  running(): boolean;
  log(): Logger | undefined;
}

function isUpdate(value: unknown): value is Update {
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isSafeInteger((value as { update_id?: unknown }).update_id)
  );
}

/** Builds the POST route. A wrong or missing secret gets 401 and nothing else happens. */
export function webhookRoute(deps: WebhookDeps): HttpRoute {
  return {
    method: 'POST',
    path: deps.path,
    async handle(req: InboundRequest): Promise<InboundResponse> {
      if (!verifySecretToken(req.headers[TELEGRAM_SECRET_HEADER], deps.secret)) {
        deps.log()?.warn({ path: req.path }, 'telegram webhook refused: wrong secret token');
        return { status: 401, body: { ok: false, error: 'unauthorized' } };
      }
      // Telegram retries non-2xx answers, which is what we want while we are not running.
      if (!deps.running()) return { status: 503, body: { ok: false, error: 'not_running' } };
      let update: unknown;
      try {
        update = JSON.parse(req.rawBody.toString('utf8'));
      } catch {
        return { status: 400, body: { ok: false, error: 'invalid_json' } };
      }
      if (!isUpdate(update)) return { status: 400, body: { ok: false, error: 'not_an_update' } };
      try {
        await deps.handle(update);
      } catch (err) {
        // Handled updates never throw (bot.catch logs); this is a bug or a shutdown. Answer 200 so
        // Telegram does not resend an update that may already have had effects.
        deps.log()?.error({ err, update_id: update.update_id }, 'telegram webhook update failed');
      }
      return { status: 200, body: { ok: true } };
    },
  };
}
