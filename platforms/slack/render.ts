/** Card -> Block Kit message. Pure: no I/O, no clock. */
import type { types } from '@slack/bolt';
import type { AdapterStrings } from '../../src/adapter.ts';
import { askFacts } from '../../src/render/ask-facts.ts';
import type { Card, CardAction, CardOutcomeKind } from '../../src/render/card.ts';
import { askBlock, choiceBlock } from './ask.ts';
import { shownInTable, tableBlocks } from './table.ts';

/** Section text object: Slack refuses a longer one with invalid_blocks. */
export const SLACK_SECTION_TEXT_MAX_CHARS = 3000;
/** Header block plain_text: Slack's limit for the header's text. */
export const SLACK_HEADER_TEXT_MAX_CHARS = 150;
/** One text element of a context block. */
export const SLACK_CONTEXT_TEXT_MAX_CHARS = 3000;
/** Button label: Slack refuses a longer one. */
export const SLACK_BUTTON_TEXT_MAX_CHARS = 75;
/** Button action_id: Slack refuses a longer one; a payload is never cut, so a longer one is an error. */
export const SLACK_ACTION_ID_MAX_CHARS = 255;
/** Button value: Slack refuses a longer one. */
export const SLACK_BUTTON_VALUE_MAX_CHARS = 2000;
/** Button url: Slack refuses a longer one; a URL cannot be cut, so the button is left out. */
export const SLACK_BUTTON_URL_MAX_CHARS = 3000;
/** Elements in one actions block. */
export const SLACK_ACTIONS_MAX_ELEMENTS = 25;
/** Blocks in one message. */
export const SLACK_MESSAGE_MAX_BLOCKS = 50;
/** Confirm dialog: title 100, text 300, confirm/deny labels 30 characters. */
export const SLACK_CONFIRM_TITLE_MAX_CHARS = 100;
export const SLACK_CONFIRM_TEXT_MAX_CHARS = 300;
export const SLACK_CONFIRM_BUTTON_MAX_CHARS = 30;
/** Top-level `text`: only notifications and screen readers show it; Slack itself cuts at 40,000. */
export const SLACK_FALLBACK_TEXT_MAX_CHARS = 3000;

/** The action_id prefix of the Details URL button; its taps are only acknowledged. */
export const SLACK_LINK_ACTION_PREFIX = 'hitl:link:';

/** A legacy attachment: here only the coloured bar that tells a final card's outcome. */
export interface SlackAttachment {
  color: string;
  fallback: string;
  blocks: types.KnownBlock[];
}

/** A message ready for chat.postMessage / chat.update. */
export interface SlackMessage {
  /** Fallback text for notifications and screen readers (escaped). */
  text: string;
  blocks: types.KnownBlock[];
  /** A final card's outcome as a coloured attachment (the bar beside it). */
  attachments?: SlackAttachment[];
}

/** The bar's colour per outcome: green approved, red rejected, blue answered, grey and amber ended. */
export const SLACK_OUTCOME_COLORS: Record<CardOutcomeKind, string> = {
  approved: '#2EB67D',
  rejected: '#E01E5A',
  answered: '#1D9BD1',
  expired: '#ECB22E',
  cancelled: '#868686',
  ended_by_policy: '#7C3085',
};

/** The outcome of a final card as an attachment with its colour and its words. */
function outcomeAttachment(card: Card): SlackAttachment[] {
  const o = card.outcome;
  if (!card.final || !o) return [];
  return [
    {
      color: SLACK_OUTCOME_COLORS[o.kind],
      fallback: fitText(o.label, SLACK_CONTEXT_TEXT_MAX_CHARS),
      blocks: [{ type: 'context', elements: [plain(o.label, SLACK_CONTEXT_TEXT_MAX_CHARS, true)] }],
    },
  ];
}

/**
 * Escapes Slack's three control characters. Slack parses `<...>` (mentions, links, `<!channel>`)
 * and entities in every text object, so text from a service must carry them as entities.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Escapes `raw` and fits it into `max` characters as Slack counts them. Cuts the raw text (by code
 * point, never inside an entity or a surrogate pair) and ends it with an ellipsis.
 */
export function fitText(raw: string, max: number): string {
  const full = escapeSlack(raw);
  if (full.length <= max) return full;
  let out = '';
  for (const ch of raw) {
    const piece = escapeSlack(ch);
    if (out.length + piece.length + 1 > max) break;
    out += piece;
  }
  return `${out}…`;
}

/** A plain_text object: Slack shows it as it is (no bold, no links, no mentions). */
function plain(raw: string, max: number, emoji = false): types.PlainTextElement {
  return { type: 'plain_text', text: fitText(raw, max), emoji };
}

// The brief's mapping by action name; for other names the card's own style decides.
const PRIMARY_ACTIONS = new Set(['approve', 'confirm', 'select', 'submit', 'retry']);
const DANGER_ACTIONS = new Set(['reject', 'abort', 'cancel']);

/** Slack's button style for an action: primary, danger, or none (default look). */
export function buttonStyle(action: CardAction): 'primary' | 'danger' | undefined {
  if (PRIMARY_ACTIONS.has(action.action)) return 'primary';
  if (DANGER_ACTIONS.has(action.action)) return 'danger';
  if (action.style === 'primary' || action.style === 'danger') return action.style;
  return undefined;
}

function actionButton(action: CardAction): types.Button {
  // The payload is the whole key to the case; cutting it would point at nothing, so refuse.
  if (action.payload.length > SLACK_ACTION_ID_MAX_CHARS) {
    throw new Error(
      `button payload for "${action.action}" is ${action.payload.length} characters; Slack allows ${SLACK_ACTION_ID_MAX_CHARS}`,
    );
  }
  const style = buttonStyle(action);
  const button: types.Button = {
    type: 'button',
    text: plain(action.label || action.action, SLACK_BUTTON_TEXT_MAX_CHARS, true),
    action_id: action.payload,
    value: action.payload,
    ...(style ? { style } : {}),
  };
  if (action.confirm) {
    const c = action.confirm;
    button.confirm = {
      title: plain(c.title, SLACK_CONFIRM_TITLE_MAX_CHARS),
      text: plain(c.text, SLACK_CONFIRM_TEXT_MAX_CHARS),
      confirm: plain(c.yes, SLACK_CONFIRM_BUTTON_MAX_CHARS),
      deny: plain(c.no, SLACK_CONFIRM_BUTTON_MAX_CHARS),
      ...(style === 'danger' ? { style: 'danger' as const } : { style: 'primary' as const }),
    };
  }
  return button;
}

/** The Details button, or null when the URL is longer than Slack accepts (a URL cannot be cut). */
function linkButton(card: Card): types.Button | null {
  const link = card.link;
  if (!link || link.url.length > SLACK_BUTTON_URL_MAX_CHARS) return null;
  return {
    type: 'button',
    text: plain(link.label || 'Details', SLACK_BUTTON_TEXT_MAX_CHARS, true),
    action_id: `${SLACK_LINK_ACTION_PREFIX}${card.key}`.slice(0, SLACK_ACTION_ID_MAX_CHARS),
    url: link.url,
  };
}

/**
 * The button of a link the person opens themselves (URL elicitation), labelled with its host; none
 * on a final card or when the URL is longer than Slack accepts (the card's text has it whole).
 */
function openLinkButton(card: Card): types.Button | null {
  const open = card.openLink;
  if (!open || card.final || open.url.length > SLACK_BUTTON_URL_MAX_CHARS) return null;
  return {
    type: 'button',
    text: plain(open.label, SLACK_BUTTON_TEXT_MAX_CHARS, true),
    action_id: `${SLACK_LINK_ACTION_PREFIX}open:${card.key}`.slice(0, SLACK_ACTION_ID_MAX_CHARS),
    url: open.url,
  };
}

/** Sections of an open ask's facts at most (a 20,000-character draft is cut; Details has it all). */
const FACT_SECTIONS_MAX = 5;
/** Raw characters per fact section, leaving room for escaping within SLACK_SECTION_TEXT_MAX_CHARS. */
const FACT_PIECE = 2400;

/**
 * What the person must read to answer an open ask (the whole confirm statement, the draft, the
 * tool's arguments, current values), in sections of plain text: none of it is cut to one line.
 */
function factBlocks(card: Card): types.SectionBlock[] {
  if (!card.ask || card.final) return [];
  const inTable = shownInTable(card.table);
  const text = askFacts(card.ask.content, { optionNotes: true })
    .filter((l) => !inTable.has(l))
    .join('\n');
  const pieces: string[] = [];
  const chars = Array.from(text);
  for (let i = 0; i < chars.length && pieces.length < FACT_SECTIONS_MAX; i += FACT_PIECE)
    pieces.push(chars.slice(i, i + FACT_PIECE).join(''));
  if (chars.length > FACT_PIECE * FACT_SECTIONS_MAX) pieces[pieces.length - 1] += '…';
  return pieces.map((p) => ({ type: 'section', text: plain(p, SLACK_SECTION_TEXT_MAX_CHARS) }));
}

/** Renders a card as a Block Kit message: header, body section, status context, buttons. */
export function renderCard(card: Card, strings?: AdapterStrings): SlackMessage {
  const blocks: types.KnownBlock[] = [];
  blocks.push({
    type: 'header',
    text: plain(card.title || 'Review', SLACK_HEADER_TEXT_MAX_CHARS, true),
  });

  // plain_text, not mrkdwn: a service's `*bold*`, links and mentions show exactly as written.
  // The lines the table shows as rows are left out of the text.
  const inTable = shownInTable(card.table);
  const lines = card.lines.filter((l) => !inTable.has(l));
  const body = [card.prompt, lines.join('\n')].filter((part) => part.trim() !== '').join('\n\n');
  if (body) {
    blocks.push({ type: 'section', text: plain(body, SLACK_SECTION_TEXT_MAX_CHARS) });
  }

  blocks.push(...factBlocks(card));
  blocks.push(...tableBlocks(card.table, fitText));

  const context: types.PlainTextElement[] = [];
  if (card.status) context.push(plain(card.status, SLACK_CONTEXT_TEXT_MAX_CHARS));
  if (card.hint && !card.final) context.push(plain(card.hint, SLACK_CONTEXT_TEXT_MAX_CHARS));
  if (context.length > 0) blocks.push({ type: 'context', elements: context });

  const ask = askBlock(card, fitText, strings);
  if (ask) blocks.push(ask);
  // An approval with its own choice keys: one button per choice stands in for the plain actions.
  const choices = choiceBlock(card, actionButton);
  if (choices) blocks.push(choices);
  const buttons: types.Button[] = card.final || choices ? [] : card.actions.map(actionButton);
  const open = openLinkButton(card);
  if (open) buttons.push(open);
  const link = linkButton(card);
  if (link) buttons.push(link);
  for (let i = 0; i < buttons.length; i += SLACK_ACTIONS_MAX_ELEMENTS) {
    blocks.push({ type: 'actions', elements: buttons.slice(i, i + SLACK_ACTIONS_MAX_ELEMENTS) });
  }
  if (blocks.length > SLACK_MESSAGE_MAX_BLOCKS) {
    throw new Error(`card needs ${blocks.length} blocks; Slack allows ${SLACK_MESSAGE_MAX_BLOCKS}`);
  }

  const headline = card.prompt.trim() ? `${card.title}: ${card.prompt}` : card.title;
  const text = fitText(
    card.status ? `${headline} (${card.status})` : headline,
    SLACK_FALLBACK_TEXT_MAX_CHARS,
  );
  const attachments = outcomeAttachment(card);
  return { text, blocks, ...(attachments.length ? { attachments } : {}) };
}

/**
 * A reminder in a card's thread, drawn like the cards: the text as plain_text (the message's own
 * `text` is mrkdwn, which cannot escape `*`, `_` or `~`: a service's `*bold*` turned bold) and the
 * link as a URL button; a URL longer than a button takes is shown as text instead.
 */
export function renderNotice(
  text: string,
  link: { label: string; url: string } | null,
): SlackMessage {
  const button = link && link.url.length <= SLACK_BUTTON_URL_MAX_CHARS ? link : null;
  const shown = link && !button ? `${text}\n${link.label || 'Details'}: ${link.url}` : text;
  const blocks: types.KnownBlock[] = [
    { type: 'section', text: plain(shown, SLACK_SECTION_TEXT_MAX_CHARS) },
  ];
  if (button) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: plain(button.label || 'Details', SLACK_BUTTON_TEXT_MAX_CHARS, true),
          action_id: `${SLACK_LINK_ACTION_PREFIX}notice`,
          url: button.url,
        },
      ],
    });
  }
  // The notification's text; Slack shows the blocks in the channel.
  return { text: fitText(text, SLACK_FALLBACK_TEXT_MAX_CHARS), blocks };
}
