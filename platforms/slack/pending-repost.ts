/**
 * `/pending`'s "Re-post" on Slack: an actions block under the ephemeral list with a button per
 * item ("Re-post 1", ...). A press posts the case's card again at the bottom of its channel (the
 * relay checks the presser, the case and the rate limit: src/cases/card-repost.ts) and is answered
 * with a new ephemeral note through response_url, the list left as it is. The old card is edited
 * to say it moved (chat.update), not deleted, so its thread stays.
 */
import type { types } from '@slack/bolt';
import type { AdapterContext, PendingItem } from '../../src/adapter.ts';
import { repostOf, repostPayload, stringsOf } from '../../src/adapter-kit.ts';
import { fitText, SLACK_BUTTON_TEXT_MAX_CHARS } from './render.ts';

/** The action_id prefix of the list's "Re-post" buttons (then the item's index). */
export const SLACK_PENDING_REPOST_ACTION = 'hitlr:repost:';

/** The "Re-post" buttons of a page's items, as one actions block; null without any. */
export async function repostBlock(
  ctx: AdapterContext,
  items: PendingItem[],
  state: { address: string; user: string },
): Promise<types.KnownBlock | null> {
  const repost = ctx.repost;
  if (!repost || !items.length) return null;
  const elements = await Promise.all(
    items.map(async (i, n) => ({
      type: 'button' as const,
      text: {
        type: 'plain_text' as const,
        text: fitText(`${repost.label} ${n + 1}`, SLACK_BUTTON_TEXT_MAX_CHARS),
      },
      action_id: `${SLACK_PENDING_REPOST_ACTION}${n}`,
      value: await repostPayload(ctx.kv, { ...state, key: i.key }),
    })),
  );
  return { type: 'actions', elements };
}

/** The ephemeral note answering a "Re-post" press; null when the press is not one. */
export async function repostPress(
  ctx: AdapterContext,
  body: unknown,
): Promise<{
  response_type: 'ephemeral';
  replace_original: false;
  text: string;
  blocks: types.KnownBlock[];
} | null> {
  const b = body as {
    user?: { id?: unknown; name?: unknown };
    actions?: Array<{ action_id?: unknown; value?: unknown }>;
  };
  const action = b.actions?.[0];
  if (typeof action?.action_id !== 'string') return null;
  if (!action.action_id.startsWith(SLACK_PENDING_REPOST_ACTION)) return null;
  const user = typeof b.user?.id === 'string' ? b.user.id : '';
  const value = typeof action.value === 'string' ? action.value : undefined;
  const state = ctx.repost && user ? await repostOf(ctx.kv, value) : null;
  const reply =
    state && ctx.repost
      ? (
          await ctx.repost.press({
            platform: 'slack',
            address: state.address,
            key: state.key,
            user: { id: user },
          })
        ).text
      : stringsOf(ctx).unknownButton;
  const text = fitText(reply, 300);
  return { response_type: 'ephemeral', replace_original: false, text, blocks: [] };
}
