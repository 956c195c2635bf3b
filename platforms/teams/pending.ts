/**
 * `/pending` on Teams. Teams has no message only one person sees, so the list goes to the person's
 * private (personal) chat with the bot: asked there, it is the answer; asked in a channel or group
 * chat, the bot opens that private chat (createConversation) and says in the channel only that the
 * list was sent, naming no case. The list is an Adaptive Card: a line per case with its Details
 * link (Teams has no link to a channel message without the team's group id, which a bot is not
 * given), and a "More" Action.Execute (payload `hitlp:<token>`) whose invoke answer replaces the
 * card with the next page; only the person whose list it is can use it.
 */
import type { AdapterContext, PendingPage, PendingQuery } from '../../src/adapter.ts';
import {
  type PendingPageState,
  pendingPageOf,
  pendingPayload,
  stringsOf,
  truncateCodePoints,
} from '../../src/adapter-kit.ts';
import { adaptiveCard, type OutgoingActivity } from './activity.ts';
import type { InvokeBody } from './connector.ts';
import { bulkActions } from './pending-bulk.ts';
import { repostActions } from './pending-repost.ts';
import { escapeTeamsText, TEAMS_CARD_VERSION, TEAMS_PAYLOAD_FIELD } from './render.ts';

/** One line of the list: enough for the prompt's start and the facts after it. */
const ITEM_MAX_CHARS = 400;
const PENDING_PREFIX = 'hitlp:';

/** Whether an Action.Execute payload is a list's "More" button. */
export function isPendingPayload(payload: unknown): payload is string {
  return typeof payload === 'string' && payload.startsWith(PENDING_PREFIX);
}

/** A Details link in a TextBlock's Markdown (the URL is the relay's own, never service text). */
function detailsLink(label: string, link: string): string {
  return ` · [${escapeTeamsText(label)}](${link.replace(/[()\s]/g, encodeURIComponent)})`;
}

/** The list as an Adaptive Card. */
async function listCard(
  ctx: AdapterContext,
  page: PendingPage,
  state: Omit<PendingPageState, 'cursor'> & { cursor?: string },
): Promise<Record<string, unknown>> {
  const words = stringsOf(ctx).pending;
  const text = (t: string, extra: Record<string, unknown> = {}) => ({
    type: 'TextBlock',
    text: t,
    wrap: true,
    ...extra,
  });
  const body: Record<string, unknown>[] = page.items.length
    ? [
        text(escapeTeamsText(words.header(page.items.length, !!page.next, state.mine)), {
          weight: 'Bolder',
        }),
        ...page.items.map((i, n) =>
          text(
            `${n + 1}\\. ${escapeTeamsText(truncateCodePoints(words.item(i), ITEM_MAX_CHARS))}${
              i.link ? detailsLink(words.details, i.link) : ''
            }`,
          ),
        ),
      ]
    : [text(escapeTeamsText(words.empty(state.mine)))];
  const actions: Record<string, unknown>[] = page.next
    ? [
        {
          type: 'Action.Execute',
          title: words.more,
          verb: 'hitlp',
          data: {
            [TEAMS_PAYLOAD_FIELD]: await pendingPayload(ctx.kv, { ...state, cursor: page.next }),
          },
        },
      ]
    : [];
  actions.push(...(await repostActions(ctx, page.items, state)));
  // Teams shows six actions a card at most (More and five Re-posts): the bulk ones go in the body.
  const bulk = await bulkActions(ctx, page, state);
  if (bulk.length) body.push({ type: 'ActionSet', actions: bulk });
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: TEAMS_CARD_VERSION,
    body,
    actions,
  };
}

/** The first page of `query` as a message, or the "not available" text when the relay has none. */
export async function pendingMessage(
  ctx: AdapterContext,
  query: PendingQuery,
): Promise<OutgoingActivity> {
  if (!ctx.pending) return { text: stringsOf(ctx).pending.unavailable, textFormat: 'plain' };
  const page = await ctx.pending(query);
  const state = { address: query.address, user: query.user.id, mine: !!query.mine };
  return { attachments: [adaptiveCard(await listCard(ctx, page, state))] };
}

/** A press of a list's "More": the next page in place of the list, for its owner only. */
export async function pendingNext(
  ctx: AdapterContext,
  payload: string,
  user: string,
): Promise<InvokeBody> {
  const state = ctx.pending ? await pendingPageOf(ctx.kv, payload, user) : null;
  if (!state || !ctx.pending) {
    return {
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: stringsOf(ctx).unknownButton,
    };
  }
  const page = await ctx.pending({
    platform: 'teams',
    address: state.address,
    user: { id: state.user },
    mine: state.mine,
    cursor: state.cursor,
  });
  return {
    statusCode: 200,
    type: 'application/vnd.microsoft.card.adaptive',
    value: await listCard(ctx, page, state),
  };
}
