/**
 * `/pending`'s "Re-post" on Teams: an Action.Execute per listed case ("Re-post 1", ...; with "More"
 * at most six actions, what Teams shows), payload `hitlr:<token>`. Its invoke posts the case's
 * card again at the bottom of the conversation it targets (the relay checks the presser, the case
 * and the rate limit: src/cases/card-repost.ts) and is answered with a message; the list stays.
 * The old card is edited to say it moved (updateActivity), not deleted.
 */
import type { AdapterContext, PendingItem } from '../../src/adapter.ts';
import { repostOf, repostPayload, stringsOf } from '../../src/adapter-kit.ts';
import type { InvokeBody } from './connector.ts';
import { TEAMS_PAYLOAD_FIELD } from './render.ts';

/** Whether an Action.Execute payload is a list's "Re-post" button. */
export function isRepostPayload(payload: unknown): payload is string {
  return typeof payload === 'string' && payload.startsWith('hitlr:');
}

/** The "Re-post" actions of a page's items (none without the relay's reposter). */
export async function repostActions(
  ctx: AdapterContext,
  items: PendingItem[],
  state: { address: string; user: string },
): Promise<Record<string, unknown>[]> {
  const repost = ctx.repost;
  if (!repost) return [];
  return Promise.all(
    items.map(async (i, n) => ({
      type: 'Action.Execute',
      title: `${repost.label} ${n + 1}`,
      verb: 'hitlr',
      data: { [TEAMS_PAYLOAD_FIELD]: await repostPayload(ctx.kv, { ...state, key: i.key }) },
    })),
  );
}

/** The invoke answer to a "Re-post" press: what became of it, as a message. */
export async function repostPress(
  ctx: AdapterContext,
  payload: string,
  user: { id: string; name?: string },
): Promise<InvokeBody> {
  const state = ctx.repost ? await repostOf(ctx.kv, payload) : null;
  const text =
    state && ctx.repost
      ? (
          await ctx.repost.press({
            platform: 'teams',
            address: state.address,
            key: state.key,
            user: { id: user.id },
          })
        ).text
      : stringsOf(ctx).unknownButton;
  return { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: text };
}
