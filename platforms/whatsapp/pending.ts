/**
 * `/pending` on WhatsApp: a chat is one person's, so the list is simply the answer in that chat
 * (nobody else sees it). WhatsApp cannot edit a sent message, so a "More" reply button sends the
 * next page as a new message; only the person whose list it is can use it.
 */
import type { AdapterContext, PendingPage } from '../../src/adapter.ts';
import {
  type PendingPageState,
  pendingPageOf,
  pendingPayload,
  stringsOf,
  truncateUtf16,
} from '../../src/adapter-kit.ts';
import { bulkReplies, withReplies } from './pending-bulk.ts';
import { repostList } from './pending-repost.ts';
import { type OutboundMessage, textMessage, WHATSAPP_BUTTON_TITLE_MAX } from './render.ts';

const ITEM_MAX_CHARS = 190;

/** The page as a message: plain text, or with a "More" reply button when another page follows. */
async function render(
  ctx: AdapterContext,
  page: PendingPage,
  state: Omit<PendingPageState, 'cursor'> & { cursor?: string },
): Promise<OutboundMessage> {
  const words = stringsOf(ctx).pending;
  if (!page.items.length) return textMessage(words.empty(state.mine));
  const lines = page.items.map(
    (i, n) => `${n + 1}. ${truncateUtf16(words.item(i), ITEM_MAX_CHARS)}`,
  );
  const text = [words.header(page.items.length, !!page.next, state.mine), ...lines].join('\n');
  const more = page.next
    ? [
        {
          type: 'reply' as const,
          reply: {
            id: await pendingPayload(ctx.kv, { ...state, cursor: page.next }),
            title: truncateUtf16(words.more, WHATSAPP_BUTTON_TITLE_MAX),
          },
        },
      ]
    : [];
  // With Re-post the page is a list message (ten rows): More, up to four bulk rows, Re-post 1..5.
  const listed = await repostList(ctx, text, page.items, state, [
    ...more,
    ...(await bulkReplies(ctx, page, state, 4)),
  ]);
  if (listed) return listed;
  return withReplies(text, [...more, ...(await bulkReplies(ctx, page, state, 3 - more.length))]);
}

/** The first page of `/pending [mine]` in the chat `address` (phone id:wa id) of `waId`. */
export async function pendingFirst(
  ctx: AdapterContext,
  address: string,
  waId: string,
  mine: boolean,
): Promise<OutboundMessage> {
  if (!ctx.pending) return textMessage(stringsOf(ctx).pending.unavailable);
  const page = await ctx.pending({ platform: 'whatsapp', address, user: { id: waId }, mine });
  return render(ctx, page, { address, user: waId, mine });
}

/** The next page for a "More" reply; null when the reply is not a list's button. */
export async function pendingNext(
  ctx: AdapterContext,
  replyId: string,
  waId: string,
): Promise<OutboundMessage | null> {
  if (!replyId.startsWith('hitlp:')) return null;
  const state = ctx.pending ? await pendingPageOf(ctx.kv, replyId, waId) : null;
  if (!state || !ctx.pending) return textMessage(stringsOf(ctx).unknownButton);
  const page = await ctx.pending({
    platform: 'whatsapp',
    address: state.address,
    user: { id: state.user },
    mine: state.mine,
    cursor: state.cursor,
  });
  return render(ctx, page, state);
}
