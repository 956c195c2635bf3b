/**
 * The I/O of ask modals: remember each open card's ask (so an "Answer…" tap can open its modal on
 * any replica), open the modal with the tap's trigger_id, and turn its submission into a tap with
 * data; a refused answer is answered with `response_action: "errors"` so the modal shows it.
 */
import type { App, SlackViewAction } from '@slack/bolt';
import type { AdapterContext, Tap } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { AskContent } from '../../src/asks/content.ts';
import { probeAction } from '../../src/asks/inputs.ts';
import type { Logger } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import type { SlackApi } from './api.ts';
import {
  modalAction,
  modalData,
  modalErrors,
  modalView,
  type OpenRequest,
  parseCallbackId,
} from './ask-modal.ts';
import { messageRef } from './parse.ts';
import { fitText, SLACK_SECTION_TEXT_MAX_CHARS } from './render.ts';
import type { UserNames } from './users.ts';

/** What the flow needs of the running adapter. */
export interface Running {
  api: SlackApi;
  app: App;
  names: UserNames;
  ctx: AdapterContext;
  log: Logger;
}

/** Bolt's ack of a view_submission: empty (close the modal) or `response_action: "errors"`. */
export type ModalAck = (response?: {
  response_action: 'errors';
  errors: Record<string, string>;
}) => Promise<void>;

const askKey = (key: string) => `slack:ask:${key}`;
/** Kept a little longer than the longest ask (30 days). */
const ASK_TTL_MS = 31 * 86_400_000;

/** Stores the card's ask while it is open (and forgets it once the card is final). */
export async function rememberAsk(running: Running | undefined, card: Card): Promise<void> {
  if (!running) return;
  if (card.ask && modalView(card, fitText))
    await running.ctx.kv.set(askKey(card.key), JSON.stringify(card.ask), ASK_TTL_MS);
  else if (card.final) await running.ctx.kv.delete(askKey(card.key));
}

async function tell(running: Running, channel: string | null, user: string, text: string) {
  if (!channel) return;
  try {
    await running.api.postEphemeral({
      channel,
      user,
      text: fitText(text, SLACK_SECTION_TEXT_MAX_CHARS),
    });
  } catch (err) {
    running.log.warn({ err }, 'slack ephemeral answer failed');
  }
}

/** Opens the modal of an ask (views.open with the tap's trigger_id, valid for 3 s). */
export async function openAskModal(running: Running, open: OpenRequest): Promise<void> {
  const raw = await running.ctx.kv.get(askKey(open.key));
  const ask = raw ? (JSON.parse(raw) as Card['ask']) : undefined;
  const view = ask
    ? modalView(
        { key: open.key, ask },
        fitText,
        open.channel && open.ts ? `${open.channel}:${open.ts}` : '',
        stringsOf(running.ctx).asks.steps,
      )
    : null;
  if (!view || !ask) {
    await tell(running, open.channel, open.userId, stringsOf(running.ctx).notAnswerable);
    return;
  }
  const refusal = await refusalOf(running, open, ask.content);
  if (refusal) {
    // Refused before any typing (allowlist, approval policy, closed case): no modal opens.
    await tell(running, open.channel, open.userId, refusal);
    return;
  }
  try {
    await running.app.client.views.open({ trigger_id: open.triggerId, view });
  } catch (err) {
    running.log.warn({ err, key: open.key }, 'slack views.open failed');
    await tell(running, open.channel, open.userId, stringsOf(running.ctx).asks.formFailed);
  }
}

/** The text a tap by this person would be refused with now (AdapterContext.mayAnswer), or null. */
async function refusalOf(
  running: Running,
  open: OpenRequest,
  content: AskContent,
): Promise<string | null> {
  if (!running.ctx.mayAnswer) return null;
  const probe: Tap = {
    platform: 'slack',
    key: open.key,
    action: probeAction(content),
    user: { id: open.userId },
    ref: open.channel && open.ts ? messageRef(open.channel, open.ts) : null,
  };
  try {
    return (await running.ctx.mayAnswer(probe))?.text ?? null;
  } catch (err) {
    // The answer is checked again when it is submitted; a failed look-up only delays a refusal.
    running.log.warn({ err, key: open.key }, 'slack ask: may-answer check failed');
    return null;
  }
}

/** A view_submission of an ask modal: the answer goes to the relay; problems stay in the modal. */
export async function handleModalSubmit(
  running: Running,
  ack: ModalAck,
  body: SlackViewAction,
  view: SlackViewAction['view'],
): Promise<void> {
  const id = parseCallbackId(view.callback_id);
  const raw = id ? await running.ctx.kv.get(askKey(id.key)) : undefined;
  const ask = raw ? (JSON.parse(raw) as Card['ask']) : undefined;
  if (!id || !ask) {
    await ack({
      response_action: 'errors',
      errors: firstError(view, stringsOf(running.ctx).asks.closedUseDetails),
    });
    return;
  }
  const [channel, ts] = (view.private_metadata ?? '').split(':');
  const name = await running.names.name(body.user.id, body.user.name);
  const data = modalData(ask.content, view.state);
  const tap: Tap = {
    platform: 'slack',
    key: id.key,
    action: modalAction(ask.content, data, id.action),
    user: name ? { id: body.user.id, name } : { id: body.user.id },
    ref: channel && ts ? messageRef(channel, ts) : null,
    data,
  };
  let reply: Awaited<ReturnType<AdapterContext['onTap']>>;
  try {
    reply = await running.ctx.onTap(tap);
  } catch (err) {
    running.log.error({ err, key: tap.key }, 'slack modal answer failed in the relay');
    await ack({
      response_action: 'errors',
      errors: firstError(view, stringsOf(running.ctx).asks.failedTryAgain),
    });
    return;
  }
  if (reply.outcome === 'confirm_required') {
    // An irreversible pick: the modal stays open and a second Submit confirms it.
    const onDecision = view.blocks?.some((b) => b.block_id === 'decision');
    await ack({
      response_action: 'errors',
      errors: onDecision ? { decision: reply.text.slice(0, 150) } : firstError(view, reply.text),
    });
    return;
  }
  if (reply.outcome === 'invalid_answer') {
    const errors = modalErrors(reply.issues ?? []);
    await ack({
      response_action: 'errors',
      errors: Object.keys(errors).length ? errors : firstError(view, reply.text),
    });
    return;
  }
  await ack();
  if (reply.outcome !== 'submitted' && reply.text.trim())
    await tell(running, channel || null, body.user.id, reply.text);
}

/** An error on the modal's first input (Slack shows errors only beside inputs). */
function firstError(view: SlackViewAction['view'], message: string): Record<string, string> {
  const first = view.blocks?.find((b) => b.type === 'input')?.block_id;
  return first ? { [first]: message.slice(0, 150) } : {};
}
