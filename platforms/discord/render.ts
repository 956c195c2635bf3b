/** Card -> Discord message payload (content + message components). Pure. */

import type { AdapterStrings } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import { PlatformError } from '../../src/errors.ts';
import { askFacts } from '../../src/render/ask-facts.ts';
import type { ActionStyle, Card, CardLink, CardOutcomeKind } from '../../src/render/card.ts';
import { askSelect, type DiscordStringSelect } from './ask.ts';
import { askChoiceButtons, askOpenButton } from './ask-modal.ts';
import { escapeMarkdown, truncateEscaped, truncatePlain } from './markdown.ts';

/** Discord refuses message content longer than 2000 characters. */
export const DISCORD_CONTENT_MAX_CHARS = 2000;
/** A button's custom_id is 1-100 characters and comes back verbatim in the interaction. */
export const DISCORD_CUSTOM_ID_MAX_CHARS = 100;
/** Button labels are cut by Discord beyond 80 characters (the API refuses longer ones). */
export const DISCORD_BUTTON_LABEL_MAX_CHARS = 80;
/** A link button's url may be at most 512 characters. */
export const DISCORD_LINK_URL_MAX_CHARS = 512;
/** An action row holds at most 5 buttons. */
export const DISCORD_BUTTONS_PER_ROW = 5;
/** A message holds at most 5 action rows. */
export const DISCORD_ROWS_MAX = 5;

// Parts of the content that are not the service's body get their own small budgets so a long
// prompt is what gets cut, never the title or the status line.
const TITLE_MAX = 200;
const STATUS_MAX = 300;
const HINT_MAX = 300;
const LINES_SHARE_MAX = 600;

/** Button styles (Discord's numbers). */
export const DiscordButtonStyle = {
  primary: 1,
  secondary: 2,
  danger: 4,
  link: 5,
} as const;

/** A button as Discord's API takes it. */
export type DiscordButton =
  | { type: 2; style: 1 | 2 | 4; label: string; custom_id: string }
  | { type: 2; style: 5; label: string; url: string };

/** An action row (component type 1). */
export interface DiscordActionRow {
  type: 1;
  components: DiscordButton[];
}

/** An action row holding one select (an ask's). */
export interface DiscordSelectRow {
  type: 1;
  components: [DiscordStringSelect];
}

/** Who a message may ping: nobody, ever. */
export interface DiscordAllowedMentions {
  parse: [];
  replied_user?: false;
}

/**
 * An embed: an open ask's facts in its description (the whole confirm statement, the draft, the
 * tool's arguments, current values: more than the message's 2000 characters hold), or a final
 * card's outcome as its coloured strip and title.
 */
export interface DiscordEmbed {
  title?: string;
  description?: string;
  color?: number;
}

/** The body of create / edit message and of an UPDATE_MESSAGE interaction response. */
export interface DiscordMessagePayload {
  content: string;
  components: Array<DiscordActionRow | DiscordSelectRow>;
  allowed_mentions: DiscordAllowedMentions;
  /** A final card's outcome (its colour and words); [] on an open card. */
  embeds?: DiscordEmbed[];
}

/** An embed title: Discord refuses one over 256 characters. */
export const DISCORD_EMBED_TITLE_MAX_CHARS = 256;
/** An embed description: Discord refuses one over 4096 characters. */
export const DISCORD_EMBED_DESCRIPTION_MAX_CHARS = 4096;

/** The strip's colour per outcome: green approved, red rejected, blurple answered, amber, grey, purple. */
export const DISCORD_OUTCOME_COLORS: Record<CardOutcomeKind, number> = {
  approved: 0x57f287,
  rejected: 0xed4245,
  answered: 0x5865f2,
  expired: 0xfee75c,
  cancelled: 0x95a5a6,
  ended_by_policy: 0x9b59b6,
};

/** An open ask's facts, or a final card's outcome (embed titles are not Markdown: no escaping). */
function cardEmbeds(card: Card): DiscordEmbed[] {
  if (!card.final && card.ask) {
    const facts = askFacts(card.ask.content).map(escapeMarkdown).join('\n');
    return facts
      ? [{ description: truncateEscaped(facts, DISCORD_EMBED_DESCRIPTION_MAX_CHARS) }]
      : [];
  }
  const o = card.outcome;
  if (!card.final || !o) return [];
  return [
    {
      title: truncatePlain(o.label, DISCORD_EMBED_TITLE_MAX_CHARS),
      color: DISCORD_OUTCOME_COLORS[o.kind],
    },
  ];
}

/** Mentions nobody: `@everyone`, roles and users in service text stay plain text. */
export const NO_MENTIONS: DiscordAllowedMentions = { parse: [] };

const STYLE: Record<ActionStyle, 1 | 2 | 4> = {
  primary: DiscordButtonStyle.primary,
  danger: DiscordButtonStyle.danger,
  secondary: DiscordButtonStyle.secondary,
};

function renderError(message: string): PlatformError {
  return new PlatformError('discord', 'render', 'bad_request', message);
}

/** Whether Discord accepts `url` on a link button (http(s), at most 512 characters). */
export function isLinkButtonUrl(url: string): boolean {
  return url.length <= DISCORD_LINK_URL_MAX_CHARS && /^https?:\/\/\S+$/i.test(url);
}

/** The message text: bold title, prompt, context lines, hint and status, within 2000 characters. */
export function renderContent(card: Card, extraLines: string[] = []): string {
  const title = `**${truncateEscaped(escapeMarkdown(card.title.trim() || 'Review needed'), TITLE_MAX)}**`;
  const status = card.status.trim()
    ? `*${truncateEscaped(escapeMarkdown(card.status.trim()), STATUS_MAX)}*`
    : '';
  const hint = card.hint?.trim()
    ? `⚠️ ${truncateEscaped(escapeMarkdown(card.hint.trim()), HINT_MAX)}`
    : '';
  const tail = [hint, ...extraLines, status].filter(Boolean);
  const prompt = escapeMarkdown(card.prompt.trim());
  const lines = card.lines
    .map((line) => line.trim())
    .filter(Boolean)
    .map(escapeMarkdown)
    .join('\n');

  const SEP = '\n\n';
  // Room for the prompt and the lines (each with its separator); the lines keep a share of it.
  let room =
    DISCORD_CONTENT_MAX_CHARS - title.length - tail.reduce((n, p) => n + SEP.length + p.length, 0);
  const linesReserve = lines ? Math.min(lines.length, LINES_SHARE_MAX) + SEP.length : 0;
  const promptPart = prompt
    ? truncateEscaped(prompt, Math.max(0, room - linesReserve - SEP.length))
    : '';
  if (promptPart) room -= promptPart.length + SEP.length;
  const linesPart = lines ? truncateEscaped(lines, Math.max(0, room - SEP.length)) : '';

  const parts = [title, promptPart, linesPart, ...tail].filter((part) => part && part !== '…');
  // The fixed budgets above keep this within the limit; the final cut is a guard, never expected.
  return truncateEscaped(parts.join(SEP), DISCORD_CONTENT_MAX_CHARS);
}

function linkButton(link: CardLink): DiscordButton {
  return {
    type: 2,
    style: DiscordButtonStyle.link,
    label: truncatePlain(link.label.trim() || 'Details', DISCORD_BUTTON_LABEL_MAX_CHARS),
    url: link.url,
  };
}

/** Buttons in rows of five: actions first, the Details link last. Throws when limits cannot be met. */
export function renderComponents(card: Card): DiscordActionRow[] {
  const buttons: DiscordButton[] = [];
  const seen = new Set<string>();
  if (!card.final) {
    for (const action of card.actions) {
      // Payloads are never cut: a cut custom_id would tap a different action or none.
      if (action.payload.length < 1 || action.payload.length > DISCORD_CUSTOM_ID_MAX_CHARS) {
        throw renderError(
          `custom_id for action "${action.action}" is ${action.payload.length} characters (1-${DISCORD_CUSTOM_ID_MAX_CHARS} allowed)`,
        );
      }
      if (seen.has(action.payload)) {
        throw renderError(`custom_id for action "${action.action}" is not unique in the message`);
      }
      seen.add(action.payload);
      buttons.push({
        type: 2,
        style: STYLE[action.style] ?? DiscordButtonStyle.secondary,
        label: truncatePlain(action.label.trim() || action.action, DISCORD_BUTTON_LABEL_MAX_CHARS),
        custom_id: action.payload,
      });
    }
  }
  if (card.link && isLinkButtonUrl(card.link.url)) buttons.push(linkButton(card.link));
  const rows: DiscordActionRow[] = [];
  for (let i = 0; i < buttons.length; i += DISCORD_BUTTONS_PER_ROW) {
    rows.push({ type: 1, components: buttons.slice(i, i + DISCORD_BUTTONS_PER_ROW) });
  }
  if (rows.length > DISCORD_ROWS_MAX) {
    throw renderError(
      `${buttons.length} buttons do not fit in ${DISCORD_ROWS_MAX} rows of ${DISCORD_BUTTONS_PER_ROW}`,
    );
  }
  return rows;
}

/** Card -> the full message payload; the final card keeps at most the Details link (components: [] otherwise). */
export function renderMessage(card: Card, strings?: AdapterStrings): DiscordMessagePayload {
  const buttons = renderComponents(card);
  // An ask Discord can draw gets its select in a row of its own above the buttons (5 rows at most).
  const select = askSelect(card, strings);
  // Kinds answered in a modal or by successive selects get one button that opens them.
  const open = select ? null : askOpenButton(card, (strings ?? stringsOf(null)).asks.buttons);
  const choices = askChoiceButtons(card);
  const components: DiscordMessagePayload['components'] =
    select && buttons.length < DISCORD_ROWS_MAX
      ? [{ type: 1, components: [select] }, ...buttons]
      : open && buttons.length < DISCORD_ROWS_MAX
        ? [{ type: 1, components: [open] }, ...buttons]
        : choices.length && buttons.length < DISCORD_ROWS_MAX
          ? [{ type: 1, components: choices }, ...buttons]
          : buttons;
  // A Details URL Discord will not take as a button is shown as text instead (auto-linked, no embed).
  const extra =
    card.link && !isLinkButtonUrl(card.link.url) && /^https?:\/\//i.test(card.link.url)
      ? [`${escapeMarkdown(card.link.label.trim() || 'Details')}: <${card.link.url}>`]
      : [];
  return {
    content: renderContent(card, extra),
    components,
    allowed_mentions: NO_MENTIONS,
    embeds: cardEmbeds(card),
  };
}

/** A short notice (reminder, tap answer) as plain escaped text with an optional Details button. */
export function renderNotice(text: string, link: CardLink | null): DiscordMessagePayload {
  const content = truncateEscaped(escapeMarkdown(text.trim() || '…'), DISCORD_CONTENT_MAX_CHARS);
  const components: DiscordActionRow[] =
    link && isLinkButtonUrl(link.url) ? [{ type: 1, components: [linkButton(link)] }] : [];
  return { content, components, allowed_mentions: NO_MENTIONS };
}
