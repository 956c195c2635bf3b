/**
 * Bulk decisions in a Google Chat `/pending` list (issue 35), a private message only the asker
 * sees: one button per action several listed cases share ("Approve all (3)"). A click replaces the
 * list (UPDATE_MESSAGE) with a confirm step naming every case that will be answered and those
 * left out with why, with Confirm and Cancel; Confirm (single use, only the person who asked)
 * submits each case through the shared path of src/adapter-bulk.ts and the message then shows
 * each case's outcome. Cancel is the list's own page button (the list again).
 */
import type { AdapterContext, InboundResponse, PendingPage, TapUser } from '../../src/adapter.ts';
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
import { escapeChat, HITL_FUNCTION, textMessage } from './render.ts';

type ListState = Omit<PendingPageState, 'cursor'> & { cursor?: string | undefined };

const button = (text: string, p: string, type = 'OUTLINED') => ({
  text: truncateUtf16(text, 40),
  type,
  onClick: { action: { function: HITL_FUNCTION, parameters: [{ key: 'p', value: p }] } },
});

/** The list's bulk buttons, one per common action; none when no listed case may be in one. */
export async function bulkButtons(
  ctx: AdapterContext,
  page: PendingPage,
  state: ListState,
): Promise<object[]> {
  const words = stringsOf(ctx).pending.bulk;
  const keys = page.items.map((i) => i.key);
  const out: object[] = [];
  for (const o of bulkOffers(page.items)) {
    const offer = { ...state, cursor: state.cursor ?? '', action: o.action, keys };
    out.push(button(words.all(o.label, o.count), await bulkOfferPayload(ctx.kv, offer)));
  }
  return out;
}

function answer(
  type: 'NEW_MESSAGE' | 'UPDATE_MESSAGE',
  lines: string[],
  viewer: string,
  buttons: object[] = [],
): InboundResponse {
  const widgets: unknown[] = [
    {
      textParagraph: {
        text: escapeChat(
          lines
            .slice(1)
            .map((l) => truncateUtf16(l, 400))
            .join('\n'),
        ),
      },
    },
  ];
  if (buttons.length) widgets.push({ buttonList: { buttons } });
  const body =
    lines.length > 1
      ? {
          ...textMessage(lines[0]!, viewer),
          cardsV2: [{ cardId: 'pending', card: { sections: [{ widgets }] } }],
        }
      : textMessage(lines[0]!, viewer);
  return { status: 200, body: { actionResponse: { type }, ...body } };
}

/** A click on a bulk button or a Confirm; null when it is neither. */
export async function pendingBulk(
  ctx: AdapterContext,
  p: string | undefined,
  user: TapUser,
): Promise<InboundResponse | null> {
  if (!p || !/^hitl[bc]:/.test(p)) return null;
  const words = stringsOf(ctx).pending.bulk;
  const who = { id: user.id };
  const confirm = bulkConfirmOf(p);
  if (confirm) {
    const done = await bulkSubmit(ctx, { platform: 'googlechat', confirm, user: who });
    // Used, expired or not theirs: a new private note; the confirm step stays as it is.
    if (!done) return answer('NEW_MESSAGE', [words.expired], user.id);
    return answer('UPDATE_MESSAGE', bulkResultLines(words, done), user.id);
  }
  const offer = await bulkOfferOf(ctx.kv, p, user.id);
  if (!offer) return answer('NEW_MESSAGE', [stringsOf(ctx).unknownButton], user.id);
  const plan = await bulkPreview(ctx, { platform: 'googlechat', ...offer, user: who });
  const { action: _, keys: __, ...list } = offer;
  const cancel = button(words.cancel, await pendingPayload(ctx.kv, list));
  const buttons = plan.confirm
    ? [button(words.confirm, bulkConfirmPayload(plan.confirm), 'FILLED'), cancel]
    : [cancel];
  return answer('UPDATE_MESSAGE', bulkConfirmLines(words, plan), user.id, buttons);
}
