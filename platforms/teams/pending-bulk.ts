/**
 * Bulk decisions in a Teams `/pending` list (issue 35), in the person's personal chat: one
 * Action.Execute per action several listed cases share ("Approve all (3)"). Its invoke answer
 * replaces the list card with a confirm step naming every case that will be answered and those
 * left out with why, with Confirm and Cancel; Confirm (single use, only the person who asked)
 * submits each case through the shared path of src/adapter-bulk.ts and its answer is a card of
 * each case's outcome. Cancel is the list's own page action (the list again).
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
import {
  type PendingPageState,
  pendingPayload,
  stringsOf,
  truncateCodePoints,
} from '../../src/adapter-kit.ts';
import type { InvokeBody } from './connector.ts';
import { escapeTeamsText, TEAMS_CARD_VERSION, TEAMS_PAYLOAD_FIELD } from './render.ts';

type ListState = Omit<PendingPageState, 'cursor'> & { cursor?: string | undefined };

/** Whether an Action.Execute payload is a bulk button or a Confirm. */
export function isBulkPayload(payload: unknown): payload is string {
  return typeof payload === 'string' && /^hitl[bc]:/.test(payload);
}

const execute = (title: string, payload: string, style?: 'positive') => ({
  type: 'Action.Execute',
  title: truncateCodePoints(title, 60),
  verb: payload.slice(0, 5),
  data: { [TEAMS_PAYLOAD_FIELD]: payload },
  ...(style ? { style } : {}),
});

/** The list's bulk actions, one per common action; none when no listed case may be in one. */
export async function bulkActions(
  ctx: AdapterContext,
  page: PendingPage,
  state: ListState,
): Promise<Record<string, unknown>[]> {
  const words = stringsOf(ctx).pending.bulk;
  const keys = page.items.map((i) => i.key);
  const out: Record<string, unknown>[] = [];
  for (const o of bulkOffers(page.items).slice(0, 4)) {
    const offer = { ...state, cursor: state.cursor ?? '', action: o.action, keys };
    out.push(execute(words.all(o.label, o.count), await bulkOfferPayload(ctx.kv, offer)));
  }
  return out;
}

const cardOf = (lines: string[], actions: Record<string, unknown>[]): InvokeBody => ({
  statusCode: 200,
  type: 'application/vnd.microsoft.card.adaptive',
  value: {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: TEAMS_CARD_VERSION,
    body: lines.map((l, n) => ({
      type: 'TextBlock',
      text: escapeTeamsText(truncateCodePoints(l, 400)),
      wrap: true,
      ...(n === 0 ? { weight: 'Bolder' } : {}),
    })),
    actions,
  },
});

const said = (text: string): InvokeBody => ({
  statusCode: 200,
  type: 'application/vnd.microsoft.activity.message',
  value: text,
});

/** A press of a bulk button (the confirm step) or of Confirm (the outcomes), for its owner only. */
export async function pendingBulk(
  ctx: AdapterContext,
  payload: string,
  userId: string,
): Promise<InvokeBody> {
  const words = stringsOf(ctx).pending.bulk;
  const user = { id: userId };
  const confirm = bulkConfirmOf(payload);
  if (confirm) {
    const done = await bulkSubmit(ctx, { platform: 'teams', confirm, user });
    return done ? cardOf(bulkResultLines(words, done), []) : said(words.expired);
  }
  const offer = await bulkOfferOf(ctx.kv, payload, userId);
  if (!offer) return said(stringsOf(ctx).unknownButton);
  const p = await bulkPreview(ctx, { platform: 'teams', ...offer, user });
  const { action: _, keys: __, ...list } = offer;
  const cancel = execute(words.cancel, await pendingPayload(ctx.kv, list));
  const actions = p.confirm
    ? [execute(words.confirm, bulkConfirmPayload(p.confirm), 'positive'), cancel]
    : [cancel];
  return cardOf(bulkConfirmLines(words, p), actions);
}
