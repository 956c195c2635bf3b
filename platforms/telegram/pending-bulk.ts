/**
 * Bulk decisions in a Telegram `/pending` list (issue 35): one button per action several listed
 * cases share ("Approve all (3)"). A press edits the list (in the person's private chat) into a
 * confirm step naming every case that will be answered and those left out with why, with Confirm
 * and Cancel; Confirm (single use, only the person who asked) submits each case through the
 * shared path of src/adapter-bulk.ts and the message then shows each case's outcome. Cancel shows
 * the list again.
 */
import type { Context } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import type { AdapterContext, PendingPage } from '../../src/adapter.ts';
import {
  bulkConfirmLines,
  bulkConfirmOf,
  bulkConfirmPayload,
  bulkOfferOf,
  bulkOfferPayload,
  bulkOffers,
  bulkPreview,
  bulkResultLines,
  bulkSubmit,
} from '../../src/adapter-bulk.ts';
import { type PendingPageState, pendingPayload, stringsOf } from '../../src/adapter-kit.ts';
import { escapeHtml, TELEGRAM_TEXT_MAX_CHARS, truncateText } from './render.ts';

type ListState = Omit<PendingPageState, 'cursor'> & { cursor?: string | undefined };

/** The list's bulk buttons, one row per common action; none when no listed case may be in one. */
export async function bulkRows(
  ctx: AdapterContext,
  page: PendingPage,
  state: ListState,
): Promise<InlineKeyboardButton[][]> {
  const words = stringsOf(ctx).pending.bulk;
  const keys = page.items.map((i) => i.key);
  const rows: InlineKeyboardButton[][] = [];
  for (const o of bulkOffers(page.items)) {
    const offer = { ...state, cursor: state.cursor ?? '', action: o.action, keys };
    const data = await bulkOfferPayload(ctx.kv, offer);
    rows.push([{ text: words.all(o.label, o.count), callback_data: data }]);
  }
  return rows;
}

const html = (lines: string[]) =>
  truncateText(lines.map(escapeHtml).join('\n'), TELEGRAM_TEXT_MAX_CHARS);

/** A bulk button, Confirm or not; true when the query was one of them (it is answered here). */
export async function answerPendingBulk(c: Context, ctx: AdapterContext): Promise<boolean> {
  const q = c.callbackQuery;
  const data = q?.data ?? '';
  if (!q || !/^hitl[bc]:/.test(data)) return false;
  const words = stringsOf(ctx).pending.bulk;
  const user = { id: String(q.from.id), name: q.from.first_name };
  const confirm = bulkConfirmOf(data);
  if (confirm) {
    await c.answerCallbackQuery();
    const done = await bulkSubmit(ctx, { platform: 'telegram', confirm, user });
    if (!done) {
      await c.api.sendMessage(q.from.id, words.expired);
      return true;
    }
    await c.editMessageText(html(bulkResultLines(words, done)), {
      parse_mode: 'HTML',
      reply_markup: { inline_keyboard: [] },
    });
    return true;
  }
  const offer = await bulkOfferOf(ctx.kv, data, user.id);
  if (!offer) {
    await c.answerCallbackQuery({ text: stringsOf(ctx).unknownButton });
    return true;
  }
  const p = await bulkPreview(ctx, { platform: 'telegram', ...offer, user });
  const { action: _, keys: __, ...list } = offer;
  const cancel = { text: words.cancel, callback_data: await pendingPayload(ctx.kv, list) };
  const buttons = p.confirm
    ? [{ text: words.confirm, callback_data: bulkConfirmPayload(p.confirm) }, cancel]
    : [cancel];
  await c.editMessageText(html(bulkConfirmLines(words, p)), {
    parse_mode: 'HTML',
    reply_markup: { inline_keyboard: [buttons] },
  });
  await c.answerCallbackQuery();
  return true;
}
