/**
 * Asks in Telegram, the I/O: remembers each open card's ask content (no secrets) so any replica can
 * answer its buttons; keeps each person's selections, ranking so far and flow position in the kv
 * with an expiry; edits the keyboard on each toggle; sends one prompt per field (ForceReply, or
 * buttons for BOOLEAN / DROPDOWN / the decision) and reads the person's reply to it. Every answer
 * is a tap, checked against the ask first; a refused one is told (an alert or a reply), not recorded.
 *
 * Privacy mode: a bot in a group sees replies to its own messages even in privacy mode, so the
 * prompts work without turning privacy off; in a private chat any text answers the open prompt.
 */
import type { Api, Context } from 'grammy';
import type { InlineKeyboardButton, InlineKeyboardMarkup, Message } from 'grammy/types';
import type { AdapterContext, Tap, TapReply } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { AskContent } from '../../src/asks/content.ts';
import { probeAction } from '../../src/asks/inputs.ts';
import {
  type AskCallback,
  askRows,
  buttonAnswer,
  nextPickState,
  type PickState,
  parseAskData,
  pickSummary,
} from './ask.ts';
import {
  contentKey,
  FLOW_TTL_MS,
  type Flow,
  flowKey,
  loadJson,
  PICK_TTL_MS,
  pickKey,
} from './ask-state.ts';
import {
  buttonValue,
  flowAnswer,
  flowSteps,
  readReply,
  type Step,
  stepRows,
  stepText,
} from './ask-steps.ts';
import { refFromMessage, tapUser } from './parse.ts';
import { escapeHtml, renderNotice, TELEGRAM_TEXT_MAX_CHARS, truncateText } from './render.ts';
import { ephemeralIf, type QueryAnswer, submitWithin } from './taps.ts';

/** ForceReply's placeholder (Telegram: 1-64 characters). */
const PLACEHOLDER_MAX = 64;

/** What the flow needs of the running adapter. */
export interface FlowDeps {
  api: Api;
  ctx: AdapterContext;
  waitMs: number;
}

/** The keyboard with the ask's rows replaced by `rows` (the card's own buttons and link stay). */
function withAskRows(
  markup: InlineKeyboardMarkup | undefined,
  key: string,
  rows: InlineKeyboardButton[][],
): InlineKeyboardMarkup {
  const own = (b: InlineKeyboardButton) =>
    'callback_data' in b && parseAskData(b.callback_data)?.key === key;
  const rest = (markup?.inline_keyboard ?? []).filter((row) => !row.some(own));
  return { inline_keyboard: [...rows, ...rest] };
}

/** The message a tapped ask button is on, and who tapped. */
/** The relay's LOCALE texts (English when the context has none). */
const words = (deps: FlowDeps) => stringsOf(deps.ctx);

interface Tapped {
  user: Tap['user'];
  message: NonNullable<NonNullable<Context['callbackQuery']>['message']>;
}

/** A tap on one of an ask's buttons. */
export async function handleAskButton(
  c: Context,
  b: AskCallback,
  deps: FlowDeps,
): Promise<QueryAnswer> {
  const query = c.callbackQuery;
  if (!query?.message) return { text: words(deps).unknownButton };
  const at: Tapped = { user: tapUser(query.from), message: query.message };
  // Value buttons under a flow's prompt belong to the flow, not to the card.
  if (b.op === 'v' || b.op === 'k' || b.op === 's') return flowButton(deps, b, at);
  const content = await loadJson<AskContent>(deps.ctx, contentKey(b.key));
  if (!content) return { text: words(deps).unknownButton };
  switch (b.op) {
    case 'x':
      return { text: words(deps).asks.alreadyPlaced };
    case 't':
    case 'r':
    case 'u':
      return (await refusal(deps, b.key, content, at)) ?? pickButton(deps, b, content, at);
    case 'f':
      return (await refusal(deps, b.key, content, at)) ?? startFlow(deps, b, content, at);
    default:
      return answerButton(deps, b, content, at);
  }
}

/**
 * The refusal a tap would get (allowlist, approval policy, closed case), asked before any input is
 * collected, so nobody fills in a whole flow only to be refused at the end; null when they may go on.
 */
async function refusal(
  deps: FlowDeps,
  key: string,
  content: AskContent,
  at: Tapped,
): Promise<QueryAnswer | null> {
  if (!deps.ctx.mayAnswer) return null;
  const probe: Tap = {
    platform: 'telegram',
    key,
    action: probeAction(content),
    user: at.user,
    ref: refFromMessage(at.message),
  };
  try {
    const reply = await deps.ctx.mayAnswer(probe);
    return reply ? { text: reply.text, ...ephemeralIf(reply.outcome) } : null;
  } catch (err) {
    // The answer is checked again when it is submitted; a failed look-up only delays a refusal.
    deps.ctx.log.warn({ err, key }, 'telegram ask: may-answer check failed');
    return null;
  }
}

/** A Yes / No, option, Keep or Skip button under a flow's prompt. */
async function flowButton(deps: FlowDeps, b: AskCallback, at: Tapped): Promise<QueryAnswer> {
  const chat = at.message.chat.id;
  const flow = await loadJson<Flow>(deps.ctx, flowKey(chat, at.user.id));
  const content = await loadJson<AskContent>(deps.ctx, contentKey(b.key));
  if (!flow || !content || flow.key !== b.key || flow.prompt !== at.message.message_id)
    return { text: words(deps).asks.closed };
  const step = flowSteps(content, words(deps).asks.steps)[flow.step];
  if (!step) return { text: words(deps).unknownButton };
  if (b.op === 'v') {
    const value = buttonValue(step, b.n ?? -1);
    if (value === null) return { text: words(deps).unknownButton };
    flow.values[step.key] = value;
  } else if (b.op === 'k' && step.current !== undefined) flow.values[step.key] = step.current;
  else if (b.op === 's' && step.required) return { text: words(deps).asks.required, alert: true };
  return advance(deps, chat, at.user, content, flow, null);
}

/**
 * A toggle, a ranked place or Undo: the person's own picks, kept in the kv under their id. A
 * private chat's keyboard shows them; a group's keyboard is shared by everyone, so it keeps
 * showing nobody's picks and each person sees theirs in the toast of their tap.
 */
async function pickButton(
  deps: FlowDeps,
  b: AskCallback,
  content: AskContent,
  at: Tapped,
): Promise<QueryAnswer> {
  const state = (await loadJson<PickState>(deps.ctx, pickKey(b.key, at.user.id))) ?? {
    picked: [],
  };
  const next = nextPickState(content, b, state);
  if (!next) return { text: words(deps).unknownButton };
  await deps.ctx.kv.set(pickKey(b.key, at.user.id), JSON.stringify(next), PICK_TTL_MS);
  if (at.message.chat.type === 'private') {
    try {
      await deps.api.editMessageReplyMarkup(at.message.chat.id, at.message.message_id, {
        reply_markup: withAskRows(
          'reply_markup' in at.message ? at.message.reply_markup : undefined,
          b.key,
          askRows(b.key, content, next, words(deps).asks),
        ),
      });
    } catch (err) {
      // The choice is kept either way; Done submits what is stored.
      deps.ctx.log.warn({ err, key: b.key }, 'telegram ask keyboard edit failed');
    }
  }
  return { text: pickSummary(content, next, words(deps).asks) };
}

/** "Answer…" / "Edit…": the first prompt of the field-by-field flow. */
async function startFlow(
  deps: FlowDeps,
  b: AskCallback,
  content: AskContent,
  at: Tapped,
): Promise<QueryAnswer> {
  if (!flowSteps(content, words(deps).asks.steps).length)
    return { text: words(deps).unknownButton };
  // A channel post has no author, so a reply there cannot be told apart: Details instead.
  if (at.message.chat.type === 'channel')
    return { text: words(deps).asks.channelUseDetails, alert: true };
  const flow: Flow = {
    key: b.key,
    ref: refFromMessage(at.message),
    step: 0,
    values: {},
    prompt: 0,
  };
  await sendStep(deps, at.message.chat.id, at.user, content, flow, null);
  return { text: words(deps).asks.answerBelow };
}

/** A choice, a pick, Done or "as it is": the answer goes to the relay. */
async function answerButton(
  deps: FlowDeps,
  b: AskCallback,
  content: AskContent,
  at: Tapped,
): Promise<QueryAnswer> {
  const state =
    b.op === 'd'
      ? ((await loadJson<PickState>(deps.ctx, pickKey(b.key, at.user.id))) ?? { picked: [] })
      : { picked: [] };
  const answer = buttonAnswer(content, b, state);
  if (!answer) return { text: words(deps).unknownButton };
  const tap: Tap = {
    platform: 'telegram',
    key: b.key,
    ...answer,
    user: at.user,
    ref: refFromMessage(at.message),
  };
  // The context's log and LOCALE strings, the adapter's wait.
  const out = await submitWithin((t) => deps.ctx.onTap(t), tap, {
    ...deps.ctx,
    waitMs: deps.waitMs,
  });
  if (b.op === 'd' && out.reply?.outcome === 'submitted')
    await deps.ctx.kv.delete(pickKey(b.key, at.user.id));
  return out;
}

/** A text message: the answer to the sender's open prompt in this chat, if it is one. */
export async function handleAskReply(c: Context, deps: FlowDeps): Promise<boolean> {
  const message = c.message;
  if (!message?.from || typeof message.text !== 'string') return false;
  const user = tapUser(message.from);
  const flow = await loadJson<Flow>(deps.ctx, flowKey(message.chat.id, user.id));
  if (!flow) return false;
  const toPrompt = message.reply_to_message?.message_id === flow.prompt;
  if (!toPrompt && message.chat.type !== 'private') return false;
  const content = await loadJson<AskContent>(deps.ctx, contentKey(flow.key));
  const step = content ? flowSteps(content, words(deps).asks.steps)[flow.step] : undefined;
  if (!content || !step) {
    await deps.ctx.kv.delete(flowKey(message.chat.id, user.id));
    await say(deps, message, words(deps).asks.closed);
    return true;
  }
  const read = readReply(step, message.text, words(deps).asks.steps);
  if ('problem' in read) {
    await sendStep(
      deps,
      message.chat.id,
      user,
      content,
      flow,
      `${step.label}: ${read.problem}.`,
      message,
    );
    return true;
  }
  flow.values[step.key] = read.value;
  await advance(deps, message.chat.id, user, content, flow, message);
  return true;
}

/** Goes to the next step, or submits the answer after the last one. */
async function advance(
  deps: FlowDeps,
  chat: number,
  user: Tap['user'],
  content: AskContent,
  flow: Flow,
  replyTo: Message | null,
): Promise<QueryAnswer> {
  const steps = flowSteps(content, words(deps).asks.steps);
  flow.step += 1;
  if (flow.step < steps.length) {
    await sendStep(deps, chat, user, content, flow, null, replyTo ?? undefined);
    return { text: '' };
  }
  await deps.ctx.kv.delete(flowKey(chat, user.id));
  const answer = flowAnswer(content, flow.values);
  let reply: TapReply;
  try {
    reply = await deps.ctx.onTap({
      platform: 'telegram',
      key: flow.key,
      action: answer.action,
      data: answer.data,
      user,
      ref: flow.ref,
    });
  } catch (err) {
    deps.ctx.log.error({ err, key: flow.key }, 'telegram ask answer failed');
    await sayIn(deps, chat, words(deps).tapFailed, replyTo);
    return { text: words(deps).tapFailed };
  }
  const text =
    reply.outcome === 'invalid_answer'
      ? words(deps).asks.notRecorded(reply.text)
      : reply.outcome === 'submitted'
        ? words(deps).answerRecorded
        : reply.text;
  await sayIn(deps, chat, text, replyTo);
  return { text: '' };
}

/** Sends the prompt of the flow's current step (after `problem`, when the last reply was refused). */
async function sendStep(
  deps: FlowDeps,
  chat: number,
  user: Tap['user'],
  content: AskContent,
  flow: Flow,
  problem: string | null,
  replyTo?: Message,
): Promise<void> {
  const steps = flowSteps(content, words(deps).asks.steps);
  const step = steps[flow.step] as Step;
  // A mention makes a selective ForceReply open the reply field for this person only.
  const who = `<a href="tg://user?id=${encodeURIComponent(user.id)}">${escapeHtml(user.name ?? 'you')}</a>`;
  const draft =
    step.key === 'content' && typeof step.current === 'string'
      ? `\n\n<pre>${escapeHtml(truncateText(step.current, TELEGRAM_TEXT_MAX_CHARS - 800))}</pre>`
      : '';
  const text = `${problem ? `⚠️ ${escapeHtml(problem)}\n\n` : ''}${who}: ${escapeHtml(
    stepText(step, flow.step, steps.length, words(deps).asks.steps),
  )}${draft}`;
  const rows = stepRows(flow.key, step, words(deps).asks.steps);
  const reply_markup = rows.length
    ? { inline_keyboard: rows }
    : {
        force_reply: true as const,
        selective: true,
        input_field_placeholder: truncateText(step.placeholder ?? step.label, PLACEHOLDER_MAX),
      };
  const sent = await deps.api.sendMessage(chat, text, {
    parse_mode: 'HTML',
    reply_markup,
    link_preview_options: { is_disabled: true },
    ...(replyTo
      ? { reply_parameters: { message_id: replyTo.message_id, allow_sending_without_reply: true } }
      : {}),
  });
  flow.prompt = sent.message_id;
  await deps.ctx.kv.set(flowKey(chat, user.id), JSON.stringify(flow), FLOW_TTL_MS);
}

async function say(deps: FlowDeps, to: Message, text: string): Promise<void> {
  await sayIn(deps, to.chat.id, text, to);
}

async function sayIn(
  deps: FlowDeps,
  chat: number,
  text: string,
  to: Message | null,
): Promise<void> {
  try {
    await deps.api.sendMessage(chat, renderNotice(text), {
      link_preview_options: { is_disabled: true },
      ...(to
        ? { reply_parameters: { message_id: to.message_id, allow_sending_without_reply: true } }
        : {}),
    });
  } catch (err) {
    deps.ctx.log.warn({ err }, 'telegram ask reply failed');
  }
}
