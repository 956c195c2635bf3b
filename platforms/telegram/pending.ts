/**
 * `/pending` on Telegram: the list of a chat's open cases this person may decide goes to their
 * private chat with the bot (a group's other members see nothing of it), with a link to each card
 * in a supergroup and a "More" button for the next page. A person who never opened the private
 * chat (Telegram then refuses the bot's message) is told in the group how to, and nothing else.
 */
import type { Context } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import type { AdapterContext, PendingPage } from '../../src/adapter.ts';
import {
  type PendingPageState,
  pendingCommand,
  pendingPageOf,
  pendingPayload,
  stringsOf,
} from '../../src/adapter-kit.ts';
import { bulkRows } from './pending-bulk.ts';
import { repostRows } from './pending-repost.ts';
import { escapeHtml, TELEGRAM_TEXT_MAX_CHARS, truncateText } from './render.ts';

/** A link to a message of a supergroup or channel (`-100<id>`); other chats have none. */
function messageLink(chatId: string, messageId: string): string | null {
  return chatId.startsWith('-100') ? `https://t.me/c/${chatId.slice(4)}/${messageId}` : null;
}

/** The list as Telegram HTML, and its "More" button when another page follows. */
async function render(
  ctx: AdapterContext,
  page: PendingPage,
  state: Omit<PendingPageState, 'cursor'> & { cursor?: string },
): Promise<{ text: string; keyboard: InlineKeyboardButton[][] }> {
  const words = stringsOf(ctx).pending;
  if (!page.items.length) return { text: escapeHtml(words.empty(state.mine)), keyboard: [] };
  const lines = page.items.map((i, n) => {
    const [chat, id] = i.card?.id.split(':') ?? [];
    const link = chat && id ? messageLink(chat, id) : null;
    const card = link ? ` · <a href="${escapeHtml(link)}">${escapeHtml(words.card)}</a>` : '';
    return `${n + 1}. ${escapeHtml(truncateText(words.item(i), 600))}${card}`;
  });
  const text = [escapeHtml(words.header(page.items.length, !!page.next, state.mine)), ...lines];
  const bulk = await bulkRows(ctx, page, state);
  const keyboard: InlineKeyboardButton[][] = page.next
    ? [
        [
          {
            text: words.more,
            callback_data: await pendingPayload(ctx.kv, { ...state, cursor: page.next }),
          },
        ],
        ...bulk,
      ]
    : [...bulk];
  keyboard.push(...(await repostRows(ctx, page.items, state)));
  return { text: truncateText(text.join('\n'), TELEGRAM_TEXT_MAX_CHARS), keyboard };
}

/** `/pending [mine]` in any chat; true when the message was one. */
export async function answerPendingCommand(c: Context, ctx: AdapterContext): Promise<boolean> {
  const text = c.message?.text ?? '';
  const command = pendingCommand(text.replace(/^\/pending@\S+/i, '/pending'));
  if (!command || !c.chat || !c.from || !ctx.pending) return false;
  const state = { address: String(c.chat.id), user: String(c.from.id), mine: command.mine };
  const page = await ctx.pending({ platform: 'telegram', ...state, user: { id: state.user } });
  const { text: html, keyboard } = await render(ctx, page, state);
  try {
    await c.api.sendMessage(c.from.id, html, {
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
      ...(keyboard.length ? { reply_markup: { inline_keyboard: keyboard } } : {}),
    });
  } catch (err) {
    if (c.chat.type === 'private') throw err;
    // Telegram refuses a first message to someone who never started the bot: say how, nothing more.
    const link = `https://t.me/${c.me.username}`;
    await c.reply(stringsOf(ctx).pending.privateFirst(link), {
      link_preview_options: { is_disabled: true },
    });
  }
  return true;
}

/** A "More" button of a list; true when the query was one (it is answered here). */
export async function answerPendingMore(c: Context, ctx: AdapterContext): Promise<boolean> {
  const q = c.callbackQuery;
  if (!q?.data?.startsWith('hitlp:')) return false;
  const state = ctx.pending ? await pendingPageOf(ctx.kv, q.data, String(q.from.id)) : null;
  if (!state || !ctx.pending) {
    await c.answerCallbackQuery({ text: stringsOf(ctx).unknownButton });
    return true;
  }
  const page = await ctx.pending({
    platform: 'telegram',
    address: state.address,
    user: { id: state.user },
    mine: state.mine,
    cursor: state.cursor,
  });
  const { text, keyboard } = await render(ctx, page, state);
  await c.editMessageText(text, {
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
    reply_markup: { inline_keyboard: keyboard },
  });
  await c.answerCallbackQuery();
  return true;
}
