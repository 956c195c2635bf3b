/**
 * `/pending`'s "Re-post" on WhatsApp: with Re-post, a page is a list message (a message holds at
 * most three reply buttons, a list ten rows): "More" first when another page follows, then
 * the bulk offers ("Approve all (n)", four at most), then "Re-post 1" … "Re-post 5". A pick posts the case's card again at the bottom of the chat (the
 * relay checks the person, the case and the rate limit: src/cases/card-repost.ts) and is answered
 * with a text. WhatsApp can neither edit nor delete a sent message, so the old card stays as it
 * was (a tap on it still reaches the case by its key); only the new card gets the outcome reply.
 */
import type { AdapterContext, PendingItem } from '../../src/adapter.ts';
import { repostOf, repostPayload, stringsOf, truncateUtf16 } from '../../src/adapter-kit.ts';
import {
  type OutboundMessage,
  textMessage,
  WHATSAPP_BUTTON_TITLE_MAX,
  WHATSAPP_INTERACTIVE_BODY_MAX,
  WHATSAPP_ROW_TITLE_MAX,
} from './render.ts';

/**
 * The page as a list message: the `lead` rows (More, the bulk offers) then the items' Re-post
 * rows; null without Re-post.
 */
export async function repostList(
  ctx: AdapterContext,
  text: string,
  items: PendingItem[],
  state: { address: string; user: string },
  lead: { reply: { id: string; title: string } }[],
): Promise<OutboundMessage | null> {
  const repost = ctx.repost;
  if (!repost || !items.length) return null;
  const rows = await Promise.all(
    items.map(async (i, n) => ({
      id: await repostPayload(ctx.kv, { ...state, key: i.key }),
      title: truncateUtf16(`${repost.label} ${n + 1}`, WHATSAPP_ROW_TITLE_MAX),
    })),
  );
  const first = lead.map(({ reply: r }) => ({
    id: r.id,
    title: truncateUtf16(r.title, WHATSAPP_ROW_TITLE_MAX),
  }));
  return {
    type: 'interactive',
    interactive: {
      type: 'list',
      body: { text: truncateUtf16(text, WHATSAPP_INTERACTIVE_BODY_MAX) },
      action: {
        button: truncateUtf16(repost.menu, WHATSAPP_BUTTON_TITLE_MAX),
        sections: [{ rows: [...first, ...rows] }],
      },
    },
  };
}

/** The answer to a Re-post pick; null when the reply is not one. */
export async function repostReply(
  ctx: AdapterContext,
  replyId: string,
  waId: string,
): Promise<OutboundMessage | null> {
  if (!replyId.startsWith('hitlr:')) return null;
  const state = ctx.repost ? await repostOf(ctx.kv, replyId) : null;
  if (!state || !ctx.repost) return textMessage(stringsOf(ctx).unknownButton);
  const reply = await ctx.repost.press({
    platform: 'whatsapp',
    address: state.address,
    key: state.key,
    user: { id: waId },
  });
  return textMessage(reply.text);
}
