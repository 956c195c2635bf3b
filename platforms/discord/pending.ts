/**
 * `/pending` on Discord: the slash command is answered with an ephemeral message (flags 64), so
 * only the person who asked sees the list; each item links to its card, and a "More" button edits
 * that same ephemeral message to the next page (only its owner can use it).
 */
import type { AdapterContext, PendingPage } from '../../src/adapter.ts';
import {
  type PendingPageState,
  pendingPageOf,
  pendingPayload,
  stringsOf,
} from '../../src/adapter-kit.ts';
import type { DiscordInteractionResponse } from './api.ts';
import { escapeMarkdown, truncateEscaped } from './markdown.ts';
import { interactionChannelId, interactionUser, type RawInteraction } from './parse.ts';
import { bulkRow } from './pending-bulk.ts';
import { repostRow } from './pending-repost.ts';
import {
  DISCORD_CONTENT_MAX_CHARS,
  type DiscordActionRow,
  DiscordButtonStyle,
  NO_MENTIONS,
} from './render.ts';

/** CHANNEL_MESSAGE_WITH_SOURCE and UPDATE_MESSAGE; EPHEMERAL (Discord's numbers). */
const CHANNEL_MESSAGE = 4;
const UPDATE_MESSAGE = 7;
const EPHEMERAL = 64;
const ITEM_MAX_CHARS = 330;

/** `/pending [mine:True]`: a CHAT_INPUT command with one optional BOOLEAN option (type 5). */
export const PENDING_COMMAND = {
  name: 'pending',
  type: 1,
  description: 'Cases waiting for your decision in this channel (only you see the list)',
  contexts: [0, 1],
  integration_types: [0],
  options: [
    {
      type: 5,
      name: 'mine',
      description: 'Only cases whose approval policy names you',
      required: false,
    },
  ],
} as const;

/** Whether `raw` is the `/pending` command; `mine` is its option. */
export function parsePendingCommand(raw: RawInteraction): { mine: boolean } | null {
  if (raw.type !== 2 || raw.data?.name !== 'pending') return null;
  return { mine: raw.data.options?.some((o) => o.name === 'mine' && o.value === true) ?? false };
}

/** A link to a message: guild channels under the guild, DMs under `@me`. */
function messageLink(guildId: string | undefined, cardId: string): string | null {
  const [channel, message] = cardId.split(':');
  return channel && message
    ? `https://discord.com/channels/${guildId ?? '@me'}/${channel}/${message}`
    : null;
}

type Message = NonNullable<DiscordInteractionResponse['data']>;

/** The list as Discord markdown, with a "More" button when another page follows. */
async function render(
  ctx: AdapterContext,
  page: PendingPage,
  state: Omit<PendingPageState, 'cursor'> & { cursor?: string },
  guildId: string | undefined,
): Promise<Message> {
  const words = stringsOf(ctx).pending;
  if (!page.items.length)
    return {
      content: escapeMarkdown(words.empty(state.mine)),
      components: [],
      allowed_mentions: NO_MENTIONS,
    };
  const lines = page.items.map((i, n) => {
    const link = i.card ? messageLink(guildId, i.card.id) : null;
    // `<url>` inside a masked link keeps Discord from unfurling every card.
    const card = link ? ` · [${escapeMarkdown(words.card)}](<${link}>)` : '';
    return `${n + 1}\\. ${truncateEscaped(escapeMarkdown(words.item(i)), ITEM_MAX_CHARS)}${card}`;
  });
  const header = escapeMarkdown(words.header(page.items.length, !!page.next, state.mine));
  const content = truncateEscaped([header, ...lines].join('\n'), DISCORD_CONTENT_MAX_CHARS);
  const components: DiscordActionRow[] = page.next
    ? [
        {
          type: 1 as const,
          components: [
            {
              type: 2 as const,
              style: DiscordButtonStyle.secondary,
              label: words.more,
              custom_id: await pendingPayload(ctx.kv, { ...state, cursor: page.next }),
            },
          ],
        },
      ]
    : [];
  components.push(...(await bulkRow(ctx, page, state)));
  const reposts = await repostRow(ctx, page.items, state);
  if (reposts) components.push(reposts);
  return { content, components, allowed_mentions: NO_MENTIONS };
}

/** The answer to `/pending`: the first page, ephemeral. */
export async function answerPendingCommand(
  raw: RawInteraction,
  mine: boolean,
  ctx: AdapterContext,
): Promise<DiscordInteractionResponse> {
  const user = interactionUser(raw);
  const address = interactionChannelId(raw);
  const words = stringsOf(ctx).pending;
  if (!user || !address || !ctx.pending)
    return ephemeral({ content: escapeMarkdown(words.unavailable), allowed_mentions: NO_MENTIONS });
  const state = { address, user: user.id, mine };
  const page = await ctx.pending({ platform: 'discord', address, user: { id: user.id }, mine });
  return ephemeral(await render(ctx, page, state, raw.guild_id));
}

function ephemeral(data: Message): DiscordInteractionResponse {
  return { type: CHANNEL_MESSAGE, data: { ...data, flags: EPHEMERAL } };
}

/** A "More" press: the next page in place of this one; null when the button is not a list's. */
export async function answerPendingMore(
  raw: RawInteraction,
  ctx: AdapterContext,
): Promise<DiscordInteractionResponse | null> {
  const id = raw.data?.custom_id;
  if (raw.type !== 3 || !id?.startsWith('hitlp:')) return null;
  const user = interactionUser(raw);
  const state = user && ctx.pending ? await pendingPageOf(ctx.kv, id, user.id) : null;
  if (!state || !ctx.pending)
    return ephemeral({
      content: escapeMarkdown(stringsOf(ctx).unknownButton),
      allowed_mentions: NO_MENTIONS,
    });
  const page = await ctx.pending({
    platform: 'discord',
    address: state.address,
    user: { id: state.user },
    mine: state.mine,
    cursor: state.cursor,
  });
  return { type: UPDATE_MESSAGE, data: await render(ctx, page, state, raw.guild_id) };
}
