/**
 * `/pending`'s "Re-post" on Discord: an action row under the ephemeral list with a button per item
 * ("Re-post 1", ...; a page holds at most five, a row's limit). A press posts the case's card again
 * at the bottom of its channel (the relay checks the presser, the case and the rate limit:
 * src/cases/card-repost.ts) and is answered with an ephemeral note; the list stays. The old card
 * is edited to say it moved, not deleted, so replies to it keep their reference.
 */
import type { AdapterContext, PendingItem } from '../../src/adapter.ts';
import { repostOf, repostPayload, stringsOf } from '../../src/adapter-kit.ts';
import type { DiscordInteractionResponse } from './api.ts';
import { escapeMarkdown } from './markdown.ts';
import { interactionUser, type RawInteraction } from './parse.ts';
import { DiscordButtonStyle, NO_MENTIONS } from './render.ts';

/** Discord's action row holds at most five buttons. */
const ROW_MAX = 5;

/** The "Re-post" buttons of a page's items as one action row; null without any. */
export async function repostRow(
  ctx: AdapterContext,
  items: PendingItem[],
  state: { address: string; user: string },
) {
  const repost = ctx.repost;
  if (!repost || !items.length) return null;
  const components = await Promise.all(
    items.slice(0, ROW_MAX).map(async (i, n) => ({
      type: 2 as const,
      style: DiscordButtonStyle.secondary,
      label: `${repost.label} ${n + 1}`,
      custom_id: await repostPayload(ctx.kv, { ...state, key: i.key }),
    })),
  );
  return { type: 1 as const, components };
}

/** A "Re-post" press, answered with an ephemeral note; null when the button is not one. */
export async function answerRepost(
  raw: RawInteraction,
  ctx: AdapterContext,
): Promise<DiscordInteractionResponse | null> {
  const id = raw.data?.custom_id;
  if (raw.type !== 3 || !id?.startsWith('hitlr:')) return null;
  const user = interactionUser(raw);
  const state = user && ctx.repost ? await repostOf(ctx.kv, id) : null;
  const text =
    state && user && ctx.repost
      ? (
          await ctx.repost.press({
            platform: 'discord',
            address: state.address,
            key: state.key,
            user: { id: user.id },
          })
        ).text
      : stringsOf(ctx).unknownButton;
  return {
    type: 4,
    data: { content: escapeMarkdown(text), allowed_mentions: NO_MENTIONS, flags: 64 },
  };
}
