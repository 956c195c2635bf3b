/**
 * Bulk decisions in a Slack `/pending` list (issue 35): one button per action several listed cases
 * share ("Approve all (3)"). A press replaces the ephemeral list (response_url) with a confirm
 * step naming every case that will be answered and those left out with why, with Confirm and
 * Cancel; Confirm (single use, only the person who asked) submits each case through the shared
 * path of src/adapter-bulk.ts and the ephemeral message then shows each case's outcome. Cancel is
 * the list's own page button (the list again).
 */
import type { types } from '@slack/bolt';
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
import { fitText, SLACK_BUTTON_TEXT_MAX_CHARS, SLACK_SECTION_TEXT_MAX_CHARS } from './render.ts';

/** The action_id prefix of a list's bulk buttons and of a confirm step's Confirm. */
export const SLACK_PENDING_BULK_ACTION = 'hitlp:bulk:';
const CONFIRM_ACTION = 'hitlp:bulk-confirm';

type ListState = Omit<PendingPageState, 'cursor'> & { cursor?: string | undefined };
type Message = {
  response_type: 'ephemeral';
  replace_original: boolean;
  text: string;
  blocks: types.KnownBlock[];
};

const button = (text: string, action_id: string, value: string): types.Button => ({
  type: 'button',
  text: { type: 'plain_text', text: fitText(text, SLACK_BUTTON_TEXT_MAX_CHARS) },
  action_id,
  value,
});

/** The list's bulk buttons, one per common action; none when no listed case may be in one. */
export async function bulkButtons(
  ctx: AdapterContext,
  page: PendingPage,
  state: ListState,
): Promise<types.Button[]> {
  const words = stringsOf(ctx).pending.bulk;
  const keys = page.items.map((i) => i.key);
  const out: types.Button[] = [];
  for (const o of bulkOffers(page.items)) {
    const offer = { ...state, cursor: state.cursor ?? '', action: o.action, keys };
    const value = await bulkOfferPayload(ctx.kv, offer);
    out.push(button(words.all(o.label, o.count), `${SLACK_PENDING_BULK_ACTION}${o.action}`, value));
  }
  return out;
}

/** An ephemeral message of `lines` (verbatim mrkdwn) with `buttons`. */
function message(lines: string[], buttons: types.Button[], replace = true): Message {
  const text = lines.map((l) => fitText(l, 600)).join('\n');
  const blocks: types.KnownBlock[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: text.slice(0, SLACK_SECTION_TEXT_MAX_CHARS), verbatim: true },
    },
  ];
  if (buttons.length) blocks.push({ type: 'actions', elements: buttons });
  return {
    response_type: 'ephemeral',
    replace_original: replace,
    text: fitText(lines[0]!, 300),
    blocks,
  };
}

/** The message a bulk button or Confirm press puts in place of its list; null when not one. */
export async function pendingBulk(ctx: AdapterContext, body: unknown): Promise<Message | null> {
  const b = body as {
    user?: { id?: unknown; name?: unknown };
    actions?: Array<{ action_id?: unknown; value?: unknown }>;
  };
  const action = b.actions?.[0];
  const id = typeof action?.action_id === 'string' ? action.action_id : '';
  if (!id.startsWith(SLACK_PENDING_BULK_ACTION) && id !== CONFIRM_ACTION) return null;
  const words = stringsOf(ctx).pending.bulk;
  const user = { id: typeof b.user?.id === 'string' ? b.user.id : '' };
  const value = typeof action?.value === 'string' ? action.value : undefined;
  if (id === CONFIRM_ACTION) {
    const confirm = bulkConfirmOf(value);
    const done =
      confirm && user.id ? await bulkSubmit(ctx, { platform: 'slack', confirm, user }) : null;
    // Used, expired or not theirs: a new ephemeral note; the confirm step stays as it is.
    if (!done) return message([words.expired], [], false);
    return message(bulkResultLines(words, done), []);
  }
  const offer = user.id ? await bulkOfferOf(ctx.kv, value, user.id) : null;
  if (!offer) return message([stringsOf(ctx).unknownButton], [], false);
  const p = await bulkPreview(ctx, { platform: 'slack', ...offer, user });
  const { action: _, keys: __, ...list } = offer;
  const cancel = button(words.cancel, 'hitlp:more', await pendingPayload(ctx.kv, list));
  const buttons = p.confirm
    ? [
        {
          ...button(words.confirm, CONFIRM_ACTION, bulkConfirmPayload(p.confirm)),
          style: 'primary' as const,
        },
        cancel,
      ]
    : [cancel];
  return message(bulkConfirmLines(words, p), buttons);
}
