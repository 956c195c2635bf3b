/**
 * The callback receiver (spec 9): `POST <callbackPath>` from a service the agent gave
 * `hitl_callback_url`. The raw body must carry `X-HITL-Signature: sha256=<hex>`, the HMAC-SHA256 of
 * the body under the secret configured for the origin of the case it names (never "any configured
 * secret"). Anything unsigned or wrongly signed gets 401 and changes nothing. A verified callback is
 * still not believed: it triggers a confirming poll in the background and is answered 200 at once
 * (the spec's OpenAPI has the agent answer 200).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { HttpRoute, InboundResponse } from '../adapter.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { RelayConfig } from '../config/config.ts';
import { ValidationError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { parseCallback, type ReviewEvent } from '../protocol/status.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';

/** What the callback receiver touches. */
export interface CallbackDeps {
  config: Pick<RelayConfig, 'callbackPath' | 'callbackSecrets'>;
  store: Pick<Store, 'findCase'>;
  cases: Pick<CaseRepository, 'history'>;
  log: Logger;
}

/** Largest callback body taken (a spec 9 body is a few hundred bytes). */
export const CALLBACK_MAX_BYTES = 64 * 1024;

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/** What a verified callback sets off. */
export type OnVerifiedCallback = (c: StoredCase, e: ReviewEvent) => void;

/** Whether `signature` (`sha256=<hex>`) is the HMAC-SHA256 of `raw` under `secret`, compared in constant time. */
export function signatureMatches(raw: Buffer, secret: string, signature: string): boolean {
  const m = SIGNATURE.exec(signature.trim());
  if (!m) return false;
  const given = Buffer.from(m[1]!, 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The callback route. */
export function callbackRoute(deps: CallbackDeps, onVerified: OnVerifiedCallback): HttpRoute {
  const refuse = (status: number, error: string, message: string): InboundResponse => ({
    status,
    body: { error, message },
  });
  const unverified = () =>
    refuse(401, 'invalid_signature', 'the callback is not signed for a known case');

  return {
    method: 'POST',
    path: deps.config.callbackPath,
    async handle(req) {
      if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
        return refuse(415, 'unsupported_media_type', 'send Content-Type: application/json');
      if (req.rawBody.length > CALLBACK_MAX_BYTES)
        return refuse(413, 'body_too_large', `callback body over ${CALLBACK_MAX_BYTES} bytes`);
      const signature = req.headers['x-hitl-signature'];
      if (!signature || !SIGNATURE.test(signature.trim()))
        return refuse(401, 'missing_signature', 'X-HITL-Signature: sha256=<hex> is required');

      // The body is only read for case_id until the signature is checked; nothing is trusted yet.
      let body: unknown;
      try {
        body = JSON.parse(req.rawBody.toString('utf8'));
      } catch {
        return unverified();
      }
      const caseId = (body as { case_id?: unknown } | null)?.case_id;
      if (typeof caseId !== 'string' || !caseId || caseId.length > 255) return unverified();
      const c = await verifiedCase(deps, caseId, req.rawBody, signature);
      if (!c) {
        deps.log.info({ case_id: caseId.slice(0, 64) }, 'callback refused: signature not valid');
        return unverified();
      }

      let event: ReviewEvent;
      try {
        event = parseCallback(body);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        return {
          status: 400,
          body: { error: err.code, message: err.message, details: err.details },
        };
      }
      const name = (body as { event: string }).event;
      await deps.cases.history(c.id, 'callback', { event: name });
      if (isTerminal(c.status)) return { status: 200, body: { ok: true, status: c.status } };
      onVerified(c, event);
      return { status: 200, body: { accepted: true } };
    },
  };
}

/**
 * The case the callback names, when the signature is right under the secret of that case's origin.
 * Each configured origin is asked for the case_id; a callback can only be verified with the secret
 * of the service that owns the case.
 */
async function verifiedCase(
  deps: CallbackDeps,
  caseId: string,
  raw: Buffer,
  signature: string,
): Promise<StoredCase | undefined> {
  for (const [origin, secret] of Object.entries(deps.config.callbackSecrets)) {
    const c = await deps.store.findCase(origin, caseId);
    if (c && signatureMatches(raw, secret, signature)) return c;
  }
  return undefined;
}
