/** Card -> Telegram message (HTML parse mode + inline keyboard). Pure: no I/O. */
import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import type { AdapterAskStrings } from '../../src/adapter.ts';
import { truncateUtf16 } from '../../src/adapter-kit.ts';
import { PlatformError } from '../../src/errors.ts';
import type {
  ActionStyle,
  Card,
  CardLink,
  CardOutcome,
  CardOutcomeKind,
} from '../../src/render/card.ts';
import { askLines, askReplacesActions, askRows } from './ask.ts';

/** sendMessage / editMessageText accept 1-4096 characters of text, counted after entity parsing. */
export const TELEGRAM_TEXT_MAX_CHARS = 4096;
/** A callback button's callback_data must be 1-64 bytes (UTF-8), or Telegram rejects the message. */
export const TELEGRAM_CALLBACK_DATA_MAX_BYTES = 64;
/** answerCallbackQuery shows at most 200 characters. */
export const TELEGRAM_CALLBACK_ANSWER_MAX_CHARS = 200;
/** Buttons per keyboard row: Telegram allows 8, but labels get unreadable past 3 on a phone. */
export const TELEGRAM_BUTTONS_PER_ROW = 3;
/** Telegram documents no label limit, but clients cut long labels; keep them short and whole. */
export const TELEGRAM_BUTTON_LABEL_MAX_CHARS = 64;

// Caps for the fixed parts, so that one huge field cannot crowd out the rest of the card.
const TITLE_MAX_CHARS = 256;
const HINT_MAX_CHARS = 512;
const STATUS_MAX_CHARS = 512;
const LINE_MAX_CHARS = 1024;
const BLOCK_SEPARATOR = '\n\n';
const ELLIPSIS = '…';

/** The message parameters for sendMessage / editMessageText. */
export interface TelegramMessage {
  text: string;
  parse_mode: 'HTML';
  reply_markup: InlineKeyboardMarkup;
  link_preview_options: { is_disabled: true };
}

/** Escapes plain text for Telegram's HTML parse mode (the three characters it requires). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Shortens plain text to at most `max` UTF-16 code units (Telegram's count never exceeds that). */
export const truncateText = truncateUtf16;

/** Throws when a button payload does not fit Telegram's callback_data limit. */
export function checkCallbackData(data: string, action: string): void {
  const bytes = Buffer.byteLength(data, 'utf8');
  if (bytes === 0 || bytes > TELEGRAM_CALLBACK_DATA_MAX_BYTES) {
    throw new PlatformError(
      'telegram',
      'render',
      'bad_request',
      `callback_data of the "${action}" button is ${bytes} bytes; Telegram allows 1-${TELEGRAM_CALLBACK_DATA_MAX_BYTES} (is the case key short?)`,
    );
  }
}

const STYLES: Record<ActionStyle, InlineKeyboardButton.CallbackButton['style']> = {
  primary: 'success',
  danger: 'danger',
  secondary: undefined,
};

/** A link button, or null when the URL is not one Telegram accepts (it would refuse the whole message). */
export function linkButton(link: CardLink | null): InlineKeyboardButton.UrlButton | null {
  if (!link) return null;
  let url: URL;
  try {
    url = new URL(link.url);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return { text: truncateText(link.label, TELEGRAM_BUTTON_LABEL_MAX_CHARS), url: link.url };
}

/** How a decided card's disabled button looks: approved green, rejected red, the rest plain. */
const OUTCOME_STYLES: Partial<Record<CardOutcomeKind, 'success' | 'danger'>> = {
  approved: 'success',
  rejected: 'danger',
};

/**
 * A decided card's outcome as one disabled button where its buttons were (Bot API 10
 * `disabled`, a DisabledButton: it does nothing when tapped). The row of choices turns into the
 * answer instead of vanishing, so the message keeps its shape and says at a glance how it ended.
 */
export function outcomeButton(outcome: CardOutcome): InlineKeyboardButton.DisabledButtonButton {
  const style = OUTCOME_STYLES[outcome.kind];
  return {
    text: truncateText(outcome.label, TELEGRAM_BUTTON_LABEL_MAX_CHARS),
    disabled: {},
    ...(style ? { style } : {}),
  };
}

/** Rendering choices: `disabledButtons: false` for a Bot API server older than 10 (it refuses them). */
export interface TelegramRenderOptions {
  disabledButtons?: boolean;
  /** The LOCALE's words for an ask's own buttons (English without). */
  words?: AdapterAskStrings;
}

/**
 * The inline keyboard: action buttons in rows (on a final card, its outcome as a disabled
 * button), then the Details link.
 */
export function renderKeyboard(
  card: Card,
  options: TelegramRenderOptions = {},
): InlineKeyboardMarkup {
  const rows: InlineKeyboardButton[][] = [];
  if (card.final && card.outcome && options.disabledButtons !== false)
    rows.push([outcomeButton(card.outcome)]);
  if (!card.final) {
    // An ask's own widgets first; an approval's choice buttons stand in for the plain actions.
    const ask = card.ask?.content;
    if (ask) rows.push(...askRows(card.key, ask, null, options.words));
    let row: InlineKeyboardButton[] = [];
    for (const action of ask && askReplacesActions(ask) ? [] : card.actions) {
      checkCallbackData(action.payload, action.action);
      const style = STYLES[action.style];
      row.push({
        text: truncateText(action.label, TELEGRAM_BUTTON_LABEL_MAX_CHARS),
        callback_data: action.payload,
        ...(style ? { style } : {}),
      });
      if (row.length === TELEGRAM_BUTTONS_PER_ROW) {
        rows.push(row);
        row = [];
      }
    }
    if (row.length > 0) rows.push(row);
  }
  // A link the person opens themselves (URL elicitation), labelled with its host; then Details.
  const open = card.final ? null : linkButton(card.openLink ?? null);
  if (open) rows.push([open]);
  const link = linkButton(card.link);
  if (link) rows.push([link]);
  return { inline_keyboard: rows };
}

/** Fits the prompt and the context lines into `budget` visible characters, prompt first. */
function fitBody(
  prompt: string,
  lines: string[],
  budget: number,
): { prompt: string; lines: string[] } {
  const capped = lines.map((line) => truncateText(line, LINE_MAX_CHARS)).filter((l) => l !== '');
  const linesLength = capped.reduce((sum, line, i) => sum + line.length + (i > 0 ? 1 : 0), 0);
  // The prompt may use what the lines leave, but always leaves the lines half of the room.
  const promptRoom = Math.max(budget - linesLength, Math.floor(budget / 2));
  const fittedPrompt = truncateText(prompt, Math.min(promptRoom, budget));
  let room = budget - fittedPrompt.length;
  const fitted: string[] = [];
  for (const line of capped) {
    const need = line.length + (fitted.length > 0 ? 1 : 0);
    if (need <= room) {
      fitted.push(line);
      room -= need;
      continue;
    }
    const rest = room - (fitted.length > 0 ? 1 : 0);
    if (rest >= 8) fitted.push(truncateText(line, rest));
    break;
  }
  return { prompt: fittedPrompt, lines: fitted };
}

/** Renders a card as an HTML message whose visible text stays within Telegram's limit. */
export function renderCard(card: Card, options: TelegramRenderOptions = {}): TelegramMessage {
  const title = truncateText(card.title.trim(), TITLE_MAX_CHARS);
  const hint = card.hint ? truncateText(card.hint.trim(), HINT_MAX_CHARS) : '';
  const status = truncateText(card.status.trim(), STATUS_MAX_CHARS);
  const prompt = card.prompt.trim();
  const ask = card.final ? undefined : card.ask?.content;
  const lines = [...card.lines, ...(ask ? askLines(ask, options.words?.steps) : [])].map((line) =>
    line.trim(),
  );
  const hintText = hint ? `⚠️ ${hint}` : '';

  const fixed = [title, hintText, status].filter((part) => part !== '');
  const bodyBlocks = (prompt ? 1 : 0) + (lines.some((l) => l !== '') ? 1 : 0);
  const separators = (fixed.length + bodyBlocks - 1) * BLOCK_SEPARATOR.length;
  const budget =
    TELEGRAM_TEXT_MAX_CHARS - fixed.reduce((sum, part) => sum + part.length, 0) - separators;
  const body = fitBody(prompt, lines, Math.max(0, budget));

  // Every block is escaped as a whole after truncation, so no cut ever lands inside an escape.
  const blocks: string[] = [];
  if (title) blocks.push(`<b>${escapeHtml(title)}</b>`);
  if (body.prompt) blocks.push(escapeHtml(body.prompt));
  if (body.lines.length > 0) blocks.push(body.lines.map(escapeHtml).join('\n'));
  if (hintText) blocks.push(escapeHtml(hintText));
  if (status) blocks.push(`<i>${escapeHtml(status)}</i>`);
  const text = blocks.length > 0 ? blocks.join(BLOCK_SEPARATOR) : ELLIPSIS;

  return {
    text,
    parse_mode: 'HTML',
    reply_markup: renderKeyboard(card, options),
    link_preview_options: { is_disabled: true },
  };
}

/** The card with its Details link moved into a text line (for when Telegram refuses the button). */
export function withLinkAsText(card: Card): Card {
  if (!card.link) return card;
  // The open link's URL is in the card's text already (the ask's statement): its button goes too.
  const { openLink: _open, ...rest } = card;
  return { ...rest, link: null, lines: [...card.lines, `${card.link.label}: ${card.link.url}`] };
}

/** Shortens a tap answer to what answerCallbackQuery accepts. */
export function renderTapAnswer(text: string): string {
  return truncateText(text.trim(), TELEGRAM_CALLBACK_ANSWER_MAX_CHARS);
}

/** A plain-text notice that cannot ping anyone: "@name" gets a word joiner so it is no mention. */
export function renderNotice(text: string): string {
  const plain = text.replace(/@(?=\w)/g, '@\u2060');
  return truncateText(plain.trim(), TELEGRAM_TEXT_MAX_CHARS) || ELLIPSIS;
}
