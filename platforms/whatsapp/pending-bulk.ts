/**
 * Bulk decisions in a WhatsApp `/pending` list (issue 35). A chat is one person's, so the list is
 * theirs alone; WhatsApp has at most three reply buttons on a message and cannot edit one, so the
 * list carries up to two bulk buttons beside "More" (one per action several listed cases share,
 * "Approve all (3)"), a press answers with a new message, the confirm step, naming every case
 * that will be answered and those left out with why, with Confirm and Cancel reply buttons;
 * Confirm (single use, only the person who asked) submits each case through the shared path of
 * src/adapter-bulk.ts and the next message tells each case's outcome. Cancel sends the list again.
 */
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
import {
  type PendingPageState,
  pendingPayload,
  stringsOf,
  truncateUtf16,
} from '../../src/adapter-kit.ts';
import {
  type OutboundMessage,
  textMessage,
  WHATSAPP_BUTTON_TITLE_MAX,
  WHATSAPP_INTERACTIVE_BODY_MAX,
} from './render.ts';

type ListState = Omit<PendingPageState, 'cursor'> & { cursor?: string | undefined };
type Reply = { type: 'reply'; reply: { id: string; title: string } };

const reply = (title: string, id: string): Reply => ({
  type: 'reply',
  reply: { id, title: truncateUtf16(title, WHATSAPP_BUTTON_TITLE_MAX) },
});

/** The list's bulk reply buttons (at most `room`), one per common action; none when none may. */
export async function bulkReplies(
  ctx: AdapterContext,
  page: PendingPage,
  state: ListState,
  room: number,
): Promise<Reply[]> {
  const words = stringsOf(ctx).pending.bulk;
  const keys = page.items.map((i) => i.key);
  const out: Reply[] = [];
  for (const o of bulkOffers(page.items).slice(0, room)) {
    const offer = { ...state, cursor: state.cursor ?? '', action: o.action, keys };
    out.push(reply(words.all(o.label, o.count), await bulkOfferPayload(ctx.kv, offer)));
  }
  return out;
}

/** `text` with reply `buttons` (three at most), or plain text without any. */
export function withReplies(text: string, buttons: Reply[]): OutboundMessage {
  if (!buttons.length) return textMessage(text);
  return {
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text: truncateUtf16(text, WHATSAPP_INTERACTIVE_BODY_MAX) },
      action: { buttons: buttons.slice(0, 3) },
    },
  };
}

/** A reply on a bulk button or a Confirm; null when it is neither. */
export async function pendingBulk(
  ctx: AdapterContext,
  replyId: string,
  waId: string,
): Promise<OutboundMessage | null> {
  if (!/^hitl[bc]:/.test(replyId)) return null;
  const words = stringsOf(ctx).pending.bulk;
  const user = { id: waId };
  const confirm = bulkConfirmOf(replyId);
  if (confirm) {
    const done = await bulkSubmit(ctx, { platform: 'whatsapp', confirm, user });
    return textMessage(done ? bulkResultLines(words, done).join('\n') : words.expired);
  }
  const offer = await bulkOfferOf(ctx.kv, replyId, waId);
  if (!offer) return textMessage(stringsOf(ctx).unknownButton);
  const p = await bulkPreview(ctx, { platform: 'whatsapp', ...offer, user });
  const { action: _, keys: __, ...list } = offer;
  const cancel = reply(words.cancel, await pendingPayload(ctx.kv, list));
  const buttons = p.confirm
    ? [reply(words.confirm, bulkConfirmPayload(p.confirm)), cancel]
    : [cancel];
  return withReplies(bulkConfirmLines(words, p).join('\n'), buttons);
}
