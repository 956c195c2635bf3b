/**
 * What the adapter does with a verified webhook batch: each message once (taps, the hitl_id
 * command, and every message keeps the person's 24-hour window open), each delivery status once
 * (recorded on the case). WhatsApp has no toast: a tap's answer is a text reply quoting the card,
 * except a decision taken, which the outcome reply states (sent when the case ends).
 */
import type { AdapterContext, MessageRef, Tap, TapReply } from '../../src/adapter.ts';
import { firstDelivery, pendingCommand, stringsOf, tapWithin } from '../../src/adapter-kit.ts';
import {
  cardRef,
  type InboundBatch,
  type InboundMessage,
  parseAskReply,
  parsePayload,
  type StatusEvent,
  targetFor,
} from './parse.ts';
import { pendingFirst, pendingNext } from './pending.ts';
import { pendingBulk } from './pending-bulk.ts';
import { repostReply } from './pending-repost.ts';
import { type OutboundMessage, textMessage } from './render.ts';
import { closeWindow, openWindow } from './window.ts';

/** The command that tells a chat its target (also "/hitl" and "/start"). */
export const TARGET_COMMAND = '/hitl_id';
const TARGET_COMMANDS = new Set(['/hitl_id', '/hitl', '/start']);
/** How long a message being handled blocks its redeliveries (longer than a submit can take). */
const HANDLING_TTL_MS = 90_000;
/** Handled ids are remembered this long; older deliveries are refused by their age instead. */
const DEDUPE_TTL_MS = 25 * 60 * 60 * 1000;

/** What handling needs from the adapter. */
export interface InboundDeps {
  ctx: AdapterContext;
  now(): number;
  /** How long the webhook answer waits for a tap's outcome (the rest goes on in the background). */
  waitMs: number;
  /** A delivery older than this is a replay (or a stale retry): skipped. */
  maxEventAgeMs: number;
  send(phoneId: string, to: string, message: OutboundMessage): Promise<string>;
  /** The typed answer stored for an ask's choice `n` of case `key`, or null. */
  askAnswer(
    key: string,
    n: number,
  ): Promise<{ action: string; data: Record<string, unknown> } | null>;
  /** Marks `replyId` as a reply to the card `cardId` (its statuses are recorded on the case). */
  rememberReply(replyId: string, cardId: string): Promise<void>;
  /** The card a reply was sent to, or null. */
  cardOfReply(messageId: string): Promise<string | null>;
}

/** Handles every batch of one webhook POST, in order. */
export async function handleBatches(d: InboundDeps, batches: InboundBatch[]): Promise<void> {
  for (const batch of batches) {
    for (const status of batch.statuses) await handleStatus(d, batch.phoneId, status);
    for (const message of batch.messages) await handleMessage(d, batch.phoneId, message);
  }
}

/** Records a status once per (message, status); a 131047 failure closes the window. */
async function handleStatus(d: InboundDeps, phoneId: string, s: StatusEvent): Promise<void> {
  const { kv, log } = d.ctx;
  if (!(await firstDelivery(kv, `whatsapp:status:${s.id}:${s.status}`, DEDUPE_TTL_MS))) return;
  if (s.errors.some((e) => e.startsWith('#131047'))) await closeWindow(kv, phoneId, s.recipient);
  const replyOf = await d.cardOfReply(s.id);
  const ref = cardRef(`${phoneId}:${s.recipient}`, replyOf ?? s.id);
  const recorded = await d.ctx.recordDelivery?.(ref, {
    state: s.status,
    at: s.at,
    message: replyOf ? 'reply' : 'card',
    ...(s.errors.length ? { error: s.errors.join('; ') } : {}),
  });
  if (s.status === 'failed') log.warn({ errors: s.errors, recorded }, 'whatsapp message failed');
}

/** One message: once, young enough, and the window kept open. */
async function handleMessage(d: InboundDeps, phoneId: string, m: InboundMessage): Promise<void> {
  const { kv, log } = d.ctx;
  const now = d.now();
  if (m.at > 0 && now - m.at > d.maxEventAgeMs) {
    log.warn({ age_ms: now - m.at }, 'whatsapp message too old; skipped (replayed or stale)');
    return;
  }
  const key = `whatsapp:message:${m.id}`;
  if (!(await firstDelivery(kv, key, HANDLING_TTL_MS, 'handling'))) {
    log.debug('whatsapp duplicate message skipped');
    return;
  }
  try {
    await openWindow(kv, phoneId, m.from, m.at, now);
    await route(d, phoneId, m);
  } catch (err) {
    await kv.set(key, 'failed', 1);
    throw err;
  }
  await kv.set(key, 'done', DEDUPE_TTL_MS);
}

async function route(d: InboundDeps, phoneId: string, m: InboundMessage): Promise<void> {
  const strings = stringsOf(d.ctx);
  const reply = (text: string) =>
    d.send(phoneId, m.from, textMessage(text, m.contextId ?? undefined));
  const address = `${phoneId}:${m.from}`;
  const next =
    m.reply !== null
      ? ((await pendingNext(d.ctx, m.reply, m.from)) ??
        (await repostReply(d.ctx, m.reply, m.from)) ??
        (await pendingBulk(d.ctx, m.reply, m.from)))
      : null;
  if (next) return void (await d.send(phoneId, m.from, next));
  if (m.reply !== null) {
    const tap = await tapOf(d, phoneId, m);
    if (!tap) return void (await reply(strings.unknownButton));
    return submit(d, tap, async (text) => {
      const id = await reply(text);
      if (m.contextId) await d.rememberReply(id, m.contextId);
    });
  }
  const text = m.text?.trim().toLowerCase();
  if (!text) return;
  const pending = pendingCommand(text);
  if (pending)
    await d.send(phoneId, m.from, await pendingFirst(d.ctx, address, m.from, pending.mine));
  else if (TARGET_COMMANDS.has(text.split(/\s+/)[0] ?? '') || text === 'hitl id') {
    const target = targetFor(phoneId, m.from);
    await reply(`${strings.target(target)}\n${strings.yourUserId(m.from)}`);
  } else if (text.startsWith('/')) {
    await reply(strings.unknownCommand(TARGET_COMMAND));
  }
}

/** The tap a reply button, list row or template quick reply stands for; null when it is not ours. */
async function tapOf(d: InboundDeps, phoneId: string, m: InboundMessage): Promise<Tap | null> {
  const ref: MessageRef | null = m.contextId ? cardRef(`${phoneId}:${m.from}`, m.contextId) : null;
  const plain = parsePayload(m.reply);
  if (plain)
    return { platform: 'whatsapp', key: plain.key, action: plain.action, user: m.user, ref };
  const ask = parseAskReply(m.reply);
  const answer = ask ? await d.askAnswer(ask.key, ask.n) : null;
  if (!ask || !answer) return null;
  return { platform: 'whatsapp', key: ask.key, ...answer, user: m.user, ref };
}

/** The text a tap is answered with; null when the outcome reply will say it. */
export function noticeFor(ctx: AdapterContext, reply: TapReply): string | null {
  const strings = stringsOf(ctx);
  if (reply.outcome === 'submitted') return null;
  // The card cannot change, so a tap on an ended one is told how it ended.
  if (reply.outcome === 'closed' && reply.card?.final)
    return strings.alreadyDecided(reply.card.status);
  if (reply.outcome === 'invalid_answer' && reply.issues?.length)
    return strings.refusal(reply.text, reply.issues);
  return reply.text;
}

/** Submits `tap`; answers within the webhook's wait, or later when the outcome comes. */
async function submit(d: InboundDeps, tap: Tap, answer: (text: string) => Promise<void>) {
  const log = d.ctx.log;
  const tell = async (reply: TapReply) => {
    const text = noticeFor(d.ctx, reply);
    if (text) await answer(text);
  };
  const within = await tapWithin(d.ctx, tap, d.waitMs);
  if (within.late === undefined) return tell(within.reply);
  void within.late
    .then(tell)
    .catch((err: unknown) => log.warn({ err: String(err) }, 'whatsapp tap answer failed'));
}
