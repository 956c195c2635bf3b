/**
 * The webhook routes: Meta's subscription handshake (GET, echoes `hub.challenge` for the right
 * verify token) and the signed POSTs of messages and statuses. A POST with a missing or wrong
 * `X-Hub-Signature-256` gets 401 and nothing else happens.
 */
import type { HttpRoute, InboundRequest, InboundResponse } from '../../src/adapter.ts';
import type { Logger } from '../../src/log.ts';
import { type InboundBatch, parseWebhook } from './parse.ts';
import { sameSecret, verifySignature, WHATSAPP_SIGNATURE_HEADER } from './verify.ts';

/** Where the routes are mounted unless configured otherwise. */
export const WHATSAPP_DEFAULT_WEBHOOK_PATH = '/whatsapp/webhook';

/** What the routes need from the adapter. */
export interface WhatsAppWebhookDeps {
  path: string;
  appSecret: string;
  verifyToken: string;
  /** Handles the batches of one POST (de-duplication included). */
  handle(batches: InboundBatch[]): Promise<void>;
  running(): boolean;
  log(): Logger | undefined;
}

/** GET: the subscription handshake. */
function handshake(deps: WhatsAppWebhookDeps, req: InboundRequest): InboundResponse {
  const mode = req.query.get('hub.mode');
  const challenge = req.query.get('hub.challenge');
  if (
    mode !== 'subscribe' ||
    !challenge ||
    !sameSecret(req.query.get('hub.verify_token'), deps.verifyToken)
  ) {
    deps.log()?.warn({ path: req.path }, 'whatsapp webhook handshake refused: wrong verify token');
    return { status: 403, body: { ok: false, error: 'forbidden' } };
  }
  // Echo the challenge as plain text, nothing else (never the token).
  return {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: challenge.slice(0, 256),
  };
}

/** POST: a signed batch of messages and statuses. */
async function delivery(deps: WhatsAppWebhookDeps, req: InboundRequest): Promise<InboundResponse> {
  if (!verifySignature(req.rawBody, req.headers[WHATSAPP_SIGNATURE_HEADER], deps.appSecret)) {
    deps.log()?.warn({ path: req.path }, 'whatsapp webhook refused: bad X-Hub-Signature-256');
    return { status: 401, body: { ok: false, error: 'unauthorized' } };
  }
  // Meta retries non-2xx answers, which is what we want while we are not running.
  if (!deps.running()) return { status: 503, body: { ok: false, error: 'not_running' } };
  let body: unknown;
  try {
    body = JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    return { status: 400, body: { ok: false, error: 'invalid_json' } };
  }
  try {
    await deps.handle(parseWebhook(body));
  } catch (err) {
    // Answer 200 anyway: a resent batch whose taps already had effects must not run twice.
    deps
      .log()
      ?.error({ err: err instanceof Error ? err.message : String(err) }, 'whatsapp webhook failed');
  }
  return { status: 200, body: { ok: true } };
}

/** Both routes on one path, as Meta's webhook settings take one callback URL. */
export function webhookRoutes(deps: WhatsAppWebhookDeps): HttpRoute[] {
  return [
    { method: 'GET', path: deps.path, handle: async (req) => handshake(deps, req) },
    { method: 'POST', path: deps.path, handle: (req) => delivery(deps, req) },
  ];
}
