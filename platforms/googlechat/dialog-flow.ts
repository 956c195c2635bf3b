/**
 * The I/O of ask dialogs: each open card whose ask needs a dialog is remembered in kv (so any
 * replica can draw the dialog when Chat asks for it), REQUEST_DIALOG is answered with the dialog,
 * SUBMIT_DIALOG goes to the shared tap pipeline and is answered with the dialog's status (closed
 * on a decision, kept open with the reason on a refused answer), CANCEL_DIALOG just closes it.
 * The card itself is edited by the relay after a decision, as for every platform.
 */
import type { AdapterContext, InboundResponse, TapReply, TapUser } from '../../src/adapter.ts';
import { stringsOf, tapWithin } from '../../src/adapter-kit.ts';
import type { Card } from '../../src/render/card.ts';
import { dialogAnswer, dialogStatus } from './dialog.ts';
import type { ChatEvent } from './parse.ts';
import { dialogCard } from './render.ts';

const askKey = (key: string) => `googlechat:dialog:${key}`;
/** Kept a little longer than the longest ask (30 days). */
const ASK_TTL_MS = 31 * 86_400_000;

const json = (body: object): InboundResponse => ({ status: 200, body });

/** Stores the card while its ask is answered in a dialog; forgets it once the card is final. */
export async function rememberDialog(ctx: AdapterContext, card: Card): Promise<void> {
  if (!card.final && dialogCard(card, ctx.strings))
    await ctx.kv.set(askKey(card.key), JSON.stringify(card), ASK_TTL_MS);
  else if (card.final) await ctx.kv.delete(askKey(card.key));
}

/** What the dialog events need besides the context. */
export interface DialogDeps {
  waitMs: number;
  sendPrivate(space: string, user: TapUser, text: string, thread: string | null): Promise<void>;
  notice(ctx: AdapterContext, reply: TapReply): string | null;
}

type Click = Extract<ChatEvent, { kind: 'click' }>;

/** REQUEST_DIALOG: the ask's dialog, or a closing status saying why it cannot be answered here. */
async function open(ctx: AdapterContext, e: Click): Promise<InboundResponse> {
  const raw = e.open ? await ctx.kv.get(askKey(e.open)) : undefined;
  const card = raw ? (JSON.parse(raw) as Card) : null;
  const body = card ? dialogCard(card, ctx.strings) : null;
  if (!card || !body) return json(dialogStatus('OK', stringsOf(ctx).notAnswerable));
  // Refused before any typing (allowlist, approval policy, closed case): no dialog opens.
  const action = card.ask ? (card.actions[0]?.action ?? 'submit') : 'submit';
  const refused = ctx.mayAnswer
    ? await ctx.mayAnswer({
        platform: 'googlechat',
        key: card.key,
        action,
        user: e.user,
        ref: null,
      })
    : null;
  if (refused) return json(dialogStatus('OK', refused.text));
  return json(dialogAnswer(body));
}

/** SUBMIT_DIALOG: the answer through the tap pipeline; the dialog closes on a decision. */
async function submit(
  d: DialogDeps,
  ctx: AdapterContext,
  e: Click,
  thread: string | null,
): Promise<InboundResponse> {
  if (!e.tap) return json(dialogStatus('OK', stringsOf(ctx).unknownButton));
  const answer = (reply: TapReply): InboundResponse => {
    const text = d.notice(ctx, reply);
    if (text === null) return json(dialogStatus('OK'));
    if (reply.outcome === 'invalid_answer') return json(dialogStatus('INVALID_ARGUMENT', text));
    if (reply.outcome === 'confirm_required')
      return json(dialogStatus('FAILED_PRECONDITION', text));
    return json(dialogStatus('OK', text));
  };
  const within = await tapWithin(ctx, e.tap, d.waitMs);
  if (within.late === undefined) return answer(within.reply);
  void within.late
    .then(async (reply) => {
      const text = d.notice(ctx, reply);
      if (text !== null) await d.sendPrivate(e.space, e.user, text, thread);
    })
    .catch((err: unknown) =>
      ctx.log.warn({ err: String(err) }, 'google chat dialog answer failed'),
    );
  return json(dialogStatus('OK', stringsOf(ctx).submitting));
}

/** A dialog event's answer. */
export function dialogEvent(
  d: DialogDeps,
  ctx: AdapterContext,
  e: Click,
  thread: string | null,
): Promise<InboundResponse> {
  if (e.dialog === 'REQUEST_DIALOG') return open(ctx, e);
  if (e.dialog === 'SUBMIT_DIALOG') return submit(d, ctx, e, thread);
  return Promise.resolve(json(dialogStatus('OK')));
}
