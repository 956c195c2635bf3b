/**
 * `/pending` on Slack (`/pending [mine]`, or `/hitl pending [mine]`): the slash command is
 * answered ephemerally (response_type "ephemeral": only the person who asked sees the list), and
 * its "More" button replaces that ephemeral message with the next page through the interaction's
 * response_url (chat.update cannot edit an ephemeral message). Only the list's owner can page it.
 * Each item links to its card (chat.getPermalink, asked for the page's cards at once).
 */
import type { types } from '@slack/bolt';
import type { AdapterContext, MessageRef, PendingPage } from '../../src/adapter.ts';
import {
  type PendingPageState,
  pendingCommand,
  pendingPageOf,
  pendingPayload,
  stringsOf,
} from '../../src/adapter-kit.ts';
import { bulkButtons } from './pending-bulk.ts';
import { repostBlock } from './pending-repost.ts';
import { fitText, SLACK_BUTTON_TEXT_MAX_CHARS, SLACK_SECTION_TEXT_MAX_CHARS } from './render.ts';

/** The action_id of a list's "More" button (its value is the page state's key). */
export const SLACK_PENDING_MORE_ACTION = 'hitlp:more';
const ITEM_MAX_CHARS = 500;
/** How long a page waits for its permalinks (the slash command is acknowledged within 3 s). */
const PERMALINK_WAIT_MS = 1500;

/** A link to a card's message (chat.getPermalink), or null. */
export type SlackPermalink = (card: MessageRef) => Promise<string | null>;

/** Each item's card link, null where Slack gave none in time. */
async function linksOf(page: PendingPage, link: SlackPermalink): Promise<(string | null)[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), PERMALINK_WAIT_MS);
  });
  try {
    return await Promise.all(
      page.items.map((i) => (i.card ? Promise.race([link(i.card), late]) : null)),
    );
  } finally {
    clearTimeout(timer);
  }
}

/** A Slack link in mrkdwn; a permalink with `|`, `<` or `>` in it is not used. */
const linked = (url: string | null, label: string) =>
  url && /^https:\/\/[^\s|<>]+$/.test(url) ? ` · <${url}|${fitText(label, 50)}>` : '';

/** An ephemeral slash command answer or response_url message. */
export interface SlackPendingMessage {
  response_type: 'ephemeral';
  replace_original?: boolean;
  text: string;
  blocks: types.KnownBlock[];
}

/** `/pending [mine]` or `/hitl pending [mine]` -> {mine}; null for any other command. */
export function parsePendingSlash(command: string, text: string): { mine: boolean } | null {
  const name = command.replace(/^\//, '').toLowerCase();
  if (name === 'pending') return pendingCommand(`pending ${text}`);
  return pendingCommand(text);
}

/** The list as blocks (verbatim mrkdwn: nothing in a prompt turns into a mention or a link). */
async function render(
  ctx: AdapterContext,
  page: PendingPage,
  state: Omit<PendingPageState, 'cursor'> & { cursor?: string },
  link: SlackPermalink,
): Promise<SlackPendingMessage> {
  const words = stringsOf(ctx).pending;
  const links = await linksOf(page, link);
  const header = page.items.length
    ? words.header(page.items.length, !!page.next, state.mine)
    : words.empty(state.mine);
  const lines = page.items.map(
    (i, n) =>
      `${n + 1}. ${fitText(words.item(i), ITEM_MAX_CHARS)}${linked(links[n] ?? null, words.card)}`,
  );
  const body = [fitText(header, 300), ...lines].join('\n');
  const blocks: types.KnownBlock[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: body.slice(0, SLACK_SECTION_TEXT_MAX_CHARS), verbatim: true },
    },
  ];
  const more: types.Button[] = page.next
    ? [
        {
          type: 'button',
          text: { type: 'plain_text', text: fitText(words.more, SLACK_BUTTON_TEXT_MAX_CHARS) },
          action_id: SLACK_PENDING_MORE_ACTION,
          value: await pendingPayload(ctx.kv, { ...state, cursor: page.next }),
        },
      ]
    : [];
  const elements = [...more, ...(await bulkButtons(ctx, page, state))];
  if (elements.length) blocks.push({ type: 'actions', elements });
  const reposts = await repostBlock(ctx, page.items, state);
  if (reposts) blocks.push(reposts);
  return { response_type: 'ephemeral', text: fitText(header, 300), blocks };
}

/** The ephemeral answer to the command: the first page. */
export async function pendingAnswer(
  ctx: AdapterContext,
  channelId: string,
  userId: string,
  mine: boolean,
  link: SlackPermalink,
): Promise<SlackPendingMessage> {
  if (!ctx.pending) {
    const text = fitText(stringsOf(ctx).pending.unavailable, 300);
    return { response_type: 'ephemeral', text, blocks: [] };
  }
  const page = await ctx.pending({
    platform: 'slack',
    address: channelId,
    user: { id: userId },
    mine,
  });
  return render(ctx, page, { address: channelId, user: userId, mine }, link);
}

/** The message a "More" press puts in place of its list; null when the press is not one. */
export async function pendingMore(
  ctx: AdapterContext,
  body: unknown,
  link: SlackPermalink,
): Promise<SlackPendingMessage | null> {
  const b = body as {
    user?: { id?: unknown };
    actions?: Array<{ action_id?: unknown; value?: unknown }>;
  };
  const action = b.actions?.[0];
  if (action?.action_id !== SLACK_PENDING_MORE_ACTION) return null;
  const user = typeof b.user?.id === 'string' ? b.user.id : '';
  const value = typeof action.value === 'string' ? action.value : undefined;
  const state = ctx.pending && user ? await pendingPageOf(ctx.kv, value, user) : null;
  if (!state || !ctx.pending) {
    // Not theirs or expired: a new ephemeral note; the list stays as it is.
    const text = fitText(stringsOf(ctx).unknownButton, 300);
    return { response_type: 'ephemeral', replace_original: false, text, blocks: [] };
  }
  const page = await ctx.pending({
    platform: 'slack',
    address: state.address,
    user: { id: state.user },
    mine: state.mine,
    cursor: state.cursor,
  });
  return { ...(await render(ctx, page, state, link)), replace_original: true };
}
