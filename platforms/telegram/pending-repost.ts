/**
 * `/pending`'s "Re-post" on Telegram: a button per listed case under the list ("Re-post 1" for
 * item 1, ...), whose press posts the case's card again at the bottom of its group (the relay
 * checks the presser, the case and the rate limit; src/cases/card-repost.ts). The press is
 * answered with a toast; the old card is edited to say it moved (a bot may delete only messages
 * younger than 48 hours, so it is edited, never deleted).
 */
import type { Context } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import type { AdapterContext, PendingItem } from '../../src/adapter.ts';
import { repostOf, repostPayload, stringsOf } from '../../src/adapter-kit.ts';

/** The "Re-post" rows of a page's items, one button a row (none without the relay's reposter). */
export async function repostRows(
  ctx: AdapterContext,
  items: PendingItem[],
  state: { address: string; user: string },
): Promise<InlineKeyboardButton[][]> {
  const repost = ctx.repost;
  if (!repost) return [];
  return Promise.all(
    items.map(async (i, n) => [
      {
        text: `${repost.label} ${n + 1}`,
        callback_data: await repostPayload(ctx.kv, { ...state, key: i.key }),
      },
    ]),
  );
}

/** A "Re-post" press; true when the query was one (it is answered here, with the relay's words). */
export async function answerRepost(c: Context, ctx: AdapterContext): Promise<boolean> {
  const q = c.callbackQuery;
  if (!q?.data?.startsWith('hitlr:')) return false;
  const state = ctx.repost ? await repostOf(ctx.kv, q.data) : null;
  if (!state || !ctx.repost) {
    await c.answerCallbackQuery({ text: stringsOf(ctx).unknownButton });
    return true;
  }
  const reply = await ctx.repost.press({
    platform: 'telegram',
    address: state.address,
    key: state.key,
    user: { id: String(q.from.id), ...(q.from.first_name ? { name: q.from.first_name } : {}) },
  });
  await c.answerCallbackQuery({ text: reply.text });
  return true;
}
