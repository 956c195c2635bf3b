/**
 * Bulk decisions in a Discord `/pending` list (issue 35): one button per action several listed
 * cases share ("Approve all (3)"). A press edits the ephemeral list (UPDATE_MESSAGE) into a
 * confirm step naming every case that will be answered and those left out with why, with Confirm
 * and Cancel; Confirm (single use, only the person who asked) submits each case through the
 * shared path of src/adapter-bulk.ts, and the ephemeral message then shows each case's outcome
 * (after the 3 s window: acknowledged at once, the outcomes as an ephemeral follow-up). Cancel is
 * the list's own page button (the list again).
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
import { type PendingPageState, pendingPayload, stringsOf } from '../../src/adapter-kit.ts';
import type { DiscordInteractionResponse } from './api.ts';
import { escapeMarkdown, truncateEscaped } from './markdown.ts';
import { interactionUser, type RawInteraction } from './parse.ts';
import {
  DISCORD_CONTENT_MAX_CHARS,
  type DiscordActionRow,
  DiscordButtonStyle,
  NO_MENTIONS,
} from './render.ts';

const CHANNEL_MESSAGE = 4;
const DEFERRED_UPDATE = 6;
const UPDATE_MESSAGE = 7;
const EPHEMERAL = 64;

type ListState = Omit<PendingPageState, 'cursor'> & { cursor?: string | undefined };
type Button = { type: 2; style: 1 | 2 | 4; label: string; custom_id: string };
type Message = NonNullable<DiscordInteractionResponse['data']>;

const button = (
  label: string,
  custom_id: string,
  style: 1 | 2 | 4 = DiscordButtonStyle.secondary,
) => ({ type: 2, style, label: label.slice(0, 80), custom_id }) as Button;

/** The list's bulk buttons (one row, five at most), one per common action; none when none may. */
export async function bulkRow(
  ctx: AdapterContext,
  page: PendingPage,
  state: ListState,
): Promise<DiscordActionRow[]> {
  const words = stringsOf(ctx).pending.bulk;
  const keys = page.items.map((i) => i.key);
  const out: Button[] = [];
  for (const o of bulkOffers(page.items).slice(0, 5)) {
    const offer = { ...state, cursor: state.cursor ?? '', action: o.action, keys };
    out.push(button(words.all(o.label, o.count), await bulkOfferPayload(ctx.kv, offer)));
  }
  return out.length ? [{ type: 1, components: out }] : [];
}

function message(lines: string[], buttons: Button[]): Message {
  const content = truncateEscaped(lines.map(escapeMarkdown).join('\n'), DISCORD_CONTENT_MAX_CHARS);
  const components: DiscordActionRow[] = buttons.length ? [{ type: 1, components: buttons }] : [];
  return { content, components, allowed_mentions: NO_MENTIONS };
}

const note = (text: string): DiscordInteractionResponse => ({
  type: CHANNEL_MESSAGE,
  data: { ...message([text], []), flags: EPHEMERAL },
});

/** What answers a Confirm that outlasts the 3 s window: its outcomes as an ephemeral follow-up. */
export interface BulkLate {
  deadlineMs: number;
  followUp(body: Message & { flags: number }): Promise<void>;
}

/** A bulk button or a Confirm; false when the component is neither (nothing is answered). */
export async function answerPendingBulk(
  raw: RawInteraction,
  ctx: AdapterContext,
  respond: (r: DiscordInteractionResponse) => Promise<void>,
  late: BulkLate,
): Promise<boolean> {
  const id = raw.data?.custom_id ?? '';
  if (raw.type !== 3 || !/^hitl[bc]:/.test(id)) return false;
  const words = stringsOf(ctx).pending.bulk;
  const who = interactionUser(raw);
  const user = { id: who?.id ?? '' };
  const confirm = bulkConfirmOf(id);
  if (confirm) {
    const done = user.id ? bulkSubmit(ctx, { platform: 'discord', confirm, user }) : null;
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<'slow'>((r) => {
      timer = setTimeout(() => r('slow'), late.deadlineMs);
    });
    const first = await Promise.race([done ?? Promise.resolve(null), slow]);
    clearTimeout(timer);
    if (first === null) await respond(note(words.expired));
    else if (first !== 'slow')
      await respond({ type: UPDATE_MESSAGE, data: message(bulkResultLines(words, first), []) });
    else {
      await respond({ type: DEFERRED_UPDATE });
      const results = await done;
      const lines = results ? bulkResultLines(words, results) : [words.expired];
      await late.followUp({ ...message(lines, []), flags: EPHEMERAL });
    }
    return true;
  }
  const offer = user.id ? await bulkOfferOf(ctx.kv, id, user.id) : null;
  if (!offer) {
    await respond(note(stringsOf(ctx).unknownButton));
    return true;
  }
  const p = await bulkPreview(ctx, { platform: 'discord', ...offer, user });
  const { action: _, keys: __, ...list } = offer;
  const cancel = button(words.cancel, await pendingPayload(ctx.kv, list));
  const buttons = p.confirm
    ? [button(words.confirm, bulkConfirmPayload(p.confirm), DiscordButtonStyle.primary), cancel]
    : [cancel];
  await respond({ type: UPDATE_MESSAGE, data: message(bulkConfirmLines(words, p), buttons) });
  return true;
}
