/**
 * The Chat app's HTTP endpoint: Google POSTs every interaction event there with a bearer token it
 * signed (verify.ts), and takes the app's synchronous JSON answer as its reply. A request without
 * a valid token gets 401 and nothing else happens; the very same request again (same token, same
 * body) is a replay and changes nothing. A click is handed to the shared tap pipeline: a taken
 * decision answers by updating the card in place (`UPDATE_MESSAGE`); anything else (a refusal,
 * "not an approver", "your vote is counted", a confirm prompt) is a private message only the
 * person who clicked sees (`privateMessageViewer`), so a space does not fill with notices.
 * Dialog events (an ask typed in a dialog) are answered in dialog-flow.ts.
 */
import { createHash } from 'node:crypto';
import type {
  AdapterContext,
  HttpRoute,
  InboundRequest,
  InboundResponse,
  Tap,
  TapReply,
  TapUser,
} from '../../src/adapter.ts';
import { firstDelivery, pendingCommand, stringsOf, tapWithin } from '../../src/adapter-kit.ts';
import type { Logger } from '../../src/log.ts';
import { dialogEvent } from './dialog-flow.ts';
import { type ChatEvent, parseEvent, targetFor } from './parse.ts';
import { pendingFirst, pendingNext } from './pending.ts';
import { pendingBulk } from './pending-bulk.ts';
import { repostClick } from './pending-repost.ts';
import { type ChatMessage, renderCard, textMessage } from './render.ts';
import type { EventTokenVerifier } from './verify.ts';

/** Where the endpoint is mounted unless configured otherwise. */
export const GOOGLECHAT_DEFAULT_PATH = '/googlechat/events';
/** The command that tells a space its target (also "hitl id"). */
export const TARGET_COMMAND = '/hitl_id';
/** A request seen once is refused as a replay this long (Google's tokens live one hour). */
const REPLAY_TTL_MS = 65 * 60 * 1000;

/** What the endpoint needs from the adapter. */
export interface ChatEndpointDeps {
  path: string;
  verifier: EventTokenVerifier;
  context(): AdapterContext | null;
  log(): Logger | undefined;
  now(): number;
  /** How long the answer waits for a tap's outcome (Google waits for the answer). */
  waitMs: number;
  /** Events older than this are skipped as replays or stale. */
  maxEventAgeMs: number;
  /** Sends a private notice after the answer was given (a slow tap's outcome). */
  sendPrivate(space: string, user: TapUser, text: string, thread: string | null): Promise<void>;
}

const json = (body: object): InboundResponse => ({ status: 200, body });

/** A private message to `user` as the synchronous answer. */
function privately(user: TapUser, text: string): InboundResponse {
  return json({ actionResponse: { type: 'NEW_MESSAGE' }, ...textMessage(text, user.id) });
}

/** The text a tap is answered with; null when the edited card says it (a decision taken). */
export function noticeFor(ctx: AdapterContext, reply: TapReply): string | null {
  if (reply.outcome === 'submitted') return null;
  if (reply.outcome === 'invalid_answer' && reply.issues?.length)
    return stringsOf(ctx).refusal(reply.text, reply.issues);
  return reply.text;
}

async function click(
  d: ChatEndpointDeps,
  ctx: AdapterContext,
  e: Extract<ChatEvent, { kind: 'click' }>,
  thread: string | null,
): Promise<InboundResponse> {
  const strings = stringsOf(ctx);
  if (!e.tap) return privately(e.user, strings.unknownButton);
  const tap: Tap = e.tap;
  const answer = (reply: TapReply): InboundResponse => {
    const text = noticeFor(ctx, reply);
    if (text !== null) return privately(e.user, text);
    if (!reply.card) return json({});
    const updated: ChatMessage = renderCard(reply.card, ctx.strings);
    return json({ actionResponse: { type: 'UPDATE_MESSAGE' }, ...updated });
  };
  const within = await tapWithin(ctx, tap, d.waitMs);
  if (within.late === undefined) return answer(within.reply);
  void within.late
    .then(async (reply) => {
      const text = noticeFor(ctx, reply);
      if (text !== null) await d.sendPrivate(e.space, e.user, text, thread);
    })
    .catch((err: unknown) => ctx.log.warn({ err: String(err) }, 'google chat tap answer failed'));
  return privately(e.user, strings.submitting);
}

function command(ctx: AdapterContext, e: Extract<ChatEvent, { kind: 'message' }>): InboundResponse {
  const strings = stringsOf(ctx);
  const text = e.text.toLowerCase();
  if (text.startsWith(TARGET_COMMAND) || text.startsWith('/hitl') || text === 'hitl id')
    return privately(
      e.user,
      `${strings.target(targetFor(e.space))}\n${strings.yourUserId(e.user.id)}`,
    );
  return privately(e.user, strings.unknownCommand(TARGET_COMMAND));
}

/** A click's `p` parameter (a `/pending` list's "More" carries `hitlp:<key>` there). */
function moreOf(body: unknown): string | undefined {
  const p = (body as { common?: { parameters?: { p?: unknown } } } | null)?.common?.parameters?.p;
  return typeof p === 'string' ? p : undefined;
}

/** The thread of the clicked message, when the event names it. */
function threadOf(body: unknown): string | null {
  const m = (body as { message?: { thread?: { name?: unknown } } } | null)?.message;
  return typeof m?.thread?.name === 'string' ? m.thread.name : null;
}

async function handle(d: ChatEndpointDeps, req: InboundRequest): Promise<InboundResponse> {
  const checked = await d.verifier.verify(req.headers.authorization);
  if (!checked.ok) {
    d.log()?.warn(
      { path: req.path, reason: checked.reason },
      'google chat event refused: bad token',
    );
    return { status: 401, body: { ok: false, error: 'unauthorized' } };
  }
  const ctx = d.context();
  if (!ctx) return { status: 503, body: { ok: false, error: 'not_running' } };
  let body: unknown;
  try {
    body = JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    return { status: 400, body: { ok: false, error: 'invalid_json' } };
  }
  const seen = createHash('sha256')
    .update(req.headers.authorization ?? '')
    .update('\n')
    .update(req.rawBody)
    .digest('base64url');
  if (!(await firstDelivery(ctx.kv, `googlechat:event:${seen}`, REPLAY_TTL_MS))) {
    ctx.log.warn('google chat event seen before; replay ignored');
    return json({});
  }
  const e = parseEvent(body);
  if (e.kind === 'other') return json({});
  if (e.at > 0 && d.now() - e.at > d.maxEventAgeMs) {
    ctx.log.warn({ age_ms: d.now() - e.at }, 'google chat event too old; skipped');
    return json({});
  }
  if (e.kind === 'click' && e.dialog)
    return dialogEvent({ ...d, notice: noticeFor }, ctx, e, threadOf(body));
  if (e.kind === 'click')
    return (
      (await pendingNext(ctx, moreOf(body), e.user)) ??
      (await repostClick(ctx, moreOf(body), e.user)) ??
      (await pendingBulk(ctx, moreOf(body), e.user)) ??
      click(d, ctx, e, threadOf(body))
    );
  const pending = e.kind === 'message' ? pendingCommand(e.text) : null;
  if (pending && e.kind === 'message') return pendingFirst(ctx, e.space, e.user, pending.mine);
  if (e.kind === 'message') return command(ctx, e);
  return json(textMessage(stringsOf(ctx).welcome(targetFor(e.space), TARGET_COMMAND)));
}

/** The endpoint's route. */
export function eventRoutes(d: ChatEndpointDeps): HttpRoute[] {
  return [{ method: 'POST', path: d.path, handle: (req) => handle(d, req) }];
}
