/**
 * `/pending` on Google Chat: the list is a private message only the person who asked sees
 * (`privateMessageViewer`), with a "More" button (function "hitl", parameter `p` = the page
 * state's key) that replaces that private message with the next page; only its owner can use it.
 */
import type { AdapterContext, InboundResponse, PendingPage, TapUser } from '../../src/adapter.ts';
import {
  type PendingPageState,
  pendingPageOf,
  pendingPayload,
  stringsOf,
  truncateUtf16,
} from '../../src/adapter-kit.ts';
import { bulkButtons } from './pending-bulk.ts';
import { repostWidget } from './pending-repost.ts';
import { escapeChat, HITL_FUNCTION, textMessage } from './render.ts';

const ITEM_MAX_CHARS = 400;

/** The private list message: a text paragraph per line, and the "More" button when one follows. */
async function render(
  ctx: AdapterContext,
  page: PendingPage,
  state: Omit<PendingPageState, 'cursor'> & { cursor?: string },
  viewer: string,
): Promise<object> {
  const words = stringsOf(ctx).pending;
  if (!page.items.length) return textMessage(words.empty(state.mine), viewer);
  const header = words.header(page.items.length, !!page.next, state.mine);
  const lines = page.items.map(
    (i, n) => `${n + 1}. ${truncateUtf16(words.item(i), ITEM_MAX_CHARS)}`,
  );
  const widgets: unknown[] = [{ textParagraph: { text: escapeChat(lines.join('\n')) } }];
  const buttons: object[] = [];
  if (page.next) {
    const p = await pendingPayload(ctx.kv, { ...state, cursor: page.next });
    buttons.push({
      text: truncateUtf16(words.more, 40),
      type: 'OUTLINED',
      onClick: { action: { function: HITL_FUNCTION, parameters: [{ key: 'p', value: p }] } },
    });
  }
  buttons.push(...(await bulkButtons(ctx, page, state)));
  if (buttons.length) widgets.push({ buttonList: { buttons } });
  const reposts = await repostWidget(ctx, page.items, state);
  if (reposts) widgets.push(reposts);
  return {
    ...textMessage(header, viewer),
    cardsV2: [{ cardId: 'pending', card: { sections: [{ widgets }] } }],
  };
}

/** The synchronous answer to `/pending [mine]`: a new private message. */
export async function pendingFirst(
  ctx: AdapterContext,
  space: string,
  user: TapUser,
  mine: boolean,
): Promise<InboundResponse> {
  const body = ctx.pending
    ? await render(
        ctx,
        await ctx.pending({ platform: 'googlechat', address: space, user: { id: user.id }, mine }),
        { address: space, user: user.id, mine },
        user.id,
      )
    : textMessage(stringsOf(ctx).pending.unavailable, user.id);
  return { status: 200, body: { actionResponse: { type: 'NEW_MESSAGE' }, ...body } };
}

/** A click on a list's "More": the next page in place of the list; null when it is not one. */
export async function pendingNext(
  ctx: AdapterContext,
  p: string | undefined,
  user: TapUser,
): Promise<InboundResponse | null> {
  if (!p?.startsWith('hitlp:')) return null;
  const state = ctx.pending ? await pendingPageOf(ctx.kv, p, user.id) : null;
  if (!state || !ctx.pending) {
    const body = textMessage(stringsOf(ctx).unknownButton, user.id);
    return { status: 200, body: { actionResponse: { type: 'NEW_MESSAGE' }, ...body } };
  }
  const page = await ctx.pending({
    platform: 'googlechat',
    address: state.address,
    user: { id: state.user },
    mine: state.mine,
    cursor: state.cursor,
  });
  const body = await render(ctx, page, state, user.id);
  return { status: 200, body: { actionResponse: { type: 'UPDATE_MESSAGE' }, ...body } };
}
