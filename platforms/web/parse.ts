/**
 * Inbound web chat requests turned into what the core understands: room and action names checked,
 * a tap's JSON body read into its user and answer, and the Tap handed to the relay.
 */
import type { InboundRequest, InboundResponse, Tap } from '../../src/adapter.ts';
import { answerOf } from './ask-controls.ts';

/** Room names: short, URL-safe. */
export const WEB_ROOM = /^[A-Za-z0-9_-]{1,64}$/;
/** Action names as button payloads carry them (`hitl:<key>:<action>`). */
export const WEB_ACTION = /^[a-z_]{1,32}$/;

/** A JSON answer of the web API. */
export const json = (status: number, body: object): InboundResponse => ({ status, body });

/** A tap's user and answer, as read from its body. */
export interface WebTapBody {
  user: { id: string; name?: string };
  answer: ReturnType<typeof answerOf>;
}

/** The tap's user and answer from the JSON body, or the 4xx that says what is wrong. */
export function readTapBody(req: InboundRequest): WebTapBody | InboundResponse {
  if (
    req.rawBody.length > 0 &&
    !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')
  )
    return json(415, {
      error: 'unsupported_media_type',
      message: 'send Content-Type: application/json with {"user":{"id":"...","name":"..."}}',
    });
  let user: { id?: unknown; name?: unknown } | undefined;
  let answer: ReturnType<typeof answerOf> = {};
  try {
    const body: unknown = JSON.parse(req.rawBody.toString('utf8') || '{}');
    // A JSON null or scalar has no user; it gets the invalid_user answer below, not a crash.
    user =
      typeof body === 'object' && body !== null ? (body as { user?: typeof user }).user : undefined;
    answer = answerOf(body);
  } catch {
    return json(400, {
      error: 'invalid_json',
      message: 'body must be JSON: {"user":{"id":"...","name":"..."}}',
    });
  }
  if (!user || typeof user.id !== 'string' || !user.id || user.id.length > 128)
    return json(400, {
      error: 'invalid_user',
      message: 'user.id (string, 1-128 characters) is required',
    });
  if (user.name !== undefined && (typeof user.name !== 'string' || user.name.length > 128))
    return json(400, {
      error: 'invalid_user',
      message: 'user.name must be a string of at most 128 characters',
    });
  return {
    user: { id: user.id, ...(typeof user.name === 'string' ? { name: user.name } : {}) },
    answer,
  };
}

/** The Tap of a button press on message `id` of `room` (its case key from the stored message). */
export function webTap(
  key: string,
  action: string,
  room: string,
  id: string,
  body: WebTapBody,
): Tap {
  return {
    platform: 'web',
    key,
    action,
    user: body.user,
    ref: { platform: 'web', address: room, id },
    ...body.answer,
  };
}
