/**
 * `/pending`'s "Re-post" on Google Chat: a button list under the private list ("Re-post 1", ...;
 * function "hitl", parameter `p` = `hitlr:<token>`). A click posts the case's card again at the
 * bottom of the space it targets (the relay checks the clicker, the case and the rate limit:
 * src/cases/card-repost.ts) and is answered with a new private message; the list stays. The old
 * card is edited to say it moved (spaces.messages.update), not deleted.
 */
import type { AdapterContext, InboundResponse, PendingItem, TapUser } from '../../src/adapter.ts';
import { repostOf, repostPayload, stringsOf, truncateUtf16 } from '../../src/adapter-kit.ts';
import { HITL_FUNCTION, textMessage } from './render.ts';

/** The "Re-post" buttons of a page's items as one widget; null without any. */
export async function repostWidget(
  ctx: AdapterContext,
  items: PendingItem[],
  state: { address: string; user: string },
): Promise<object | null> {
  const repost = ctx.repost;
  if (!repost || !items.length) return null;
  const buttons = await Promise.all(
    items.map(async (i, n) => ({
      text: truncateUtf16(`${repost.label} ${n + 1}`, 40),
      type: 'OUTLINED',
      onClick: {
        action: {
          function: HITL_FUNCTION,
          parameters: [{ key: 'p', value: await repostPayload(ctx.kv, { ...state, key: i.key }) }],
        },
      },
    })),
  );
  return { buttonList: { buttons } };
}

/** A click on a "Re-post": a private note of what became of it; null when it is not one. */
export async function repostClick(
  ctx: AdapterContext,
  p: string | undefined,
  user: TapUser,
): Promise<InboundResponse | null> {
  if (!p?.startsWith('hitlr:')) return null;
  const state = ctx.repost ? await repostOf(ctx.kv, p) : null;
  const text =
    state && ctx.repost
      ? (
          await ctx.repost.press({
            platform: 'googlechat',
            address: state.address,
            key: state.key,
            user: { id: user.id },
          })
        ).text
      : stringsOf(ctx).unknownButton;
  const body = textMessage(text, user.id);
  return { status: 200, body: { actionResponse: { type: 'NEW_MESSAGE' }, ...body } };
}
