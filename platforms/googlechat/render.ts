/**
 * Card -> Google Chat message (the body of `spaces.messages.create` / `.patch`): one cards v2 card
 * with a header (title, status), the prompt and facts as text paragraphs, an ask's input widgets
 * (ask.ts), and one buttonList: a button per inline action (`onClick.action.function` "hitl" with
 * the `hitl:<key>:<action>` payload as parameter `p`, never a token) and an `openLink` Details
 * button. Card text takes Chat's small HTML subset, so service text is escaped. The Chat API's
 * limits shape it: a message of at most 32,000 bytes, at most 100 widgets per card, a text of at
 * most 4,096 characters; an ask whose widgets would not fit keeps Details instead. Pure: no I/O.
 */
import type { AdapterStrings } from '../../src/adapter.ts';
import { stringsOf, truncateUtf16 } from '../../src/adapter-kit.ts';
import type { Card, CardAction } from '../../src/render/card.ts';
import { type AskButton, type AskParts, googlechatAsk, plainAskActions } from './ask.ts';
import { needsDialog, openDialogButton } from './dialog.ts';

/** A whole message (text and cards), in bytes of its JSON. */
export const GOOGLECHAT_MESSAGE_MAX_BYTES = 32_000;
/** Widgets of one card; Chat ignores any beyond. */
export const GOOGLECHAT_CARD_WIDGETS_MAX = 100;
/** A message's text. */
export const GOOGLECHAT_TEXT_MAX = 4_096;
/** The function name every hitl-relay button invokes. */
export const HITL_FUNCTION = 'hitl';
/** Room kept below the byte limit for what Chat adds. */
const SIZE_MARGIN = 1_000;

type Json = Record<string, unknown>;

/** A message as the adapter writes it (the Chat API's wire format). */
export interface ChatMessage {
  text?: string;
  fallbackText?: string;
  cardsV2?: Array<{ cardId: string; card: Json }>;
  privateMessageViewer?: { name: string };
}

/** Chat's card text is a small HTML subset: escape what would be read as markup. */
export function escapeChat(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const paragraph = (text: string, max = 4_000): Json => ({
  textParagraph: { text: escapeChat(truncateUtf16(text, max)) },
});

/** Danger buttons are red; the primary one is filled; the rest outlined. */
function button(a: CardAction, params: Record<string, string> = {}): Json {
  const style =
    a.style === 'danger'
      ? { type: 'FILLED', color: { red: 0.78, green: 0.16, blue: 0.16, alpha: 1 } }
      : { type: a.style === 'primary' ? 'FILLED' : 'OUTLINED' };
  return {
    text: truncateUtf16(a.label, 40),
    ...style,
    onClick: {
      action: {
        function: HITL_FUNCTION,
        parameters: [
          { key: 'p', value: a.payload },
          ...Object.entries(params).map(([key, value]) => ({ key, value })),
        ],
      },
    },
  };
}

/** Bytes the text widgets may take, so buttons, header and an ask's widgets still fit. */
const TEXT_BUDGET_BYTES = 20_000;

function textWidgets(card: Card): Json[] {
  const widgets: Json[] = [];
  let used = 0;
  const add = (w: Json) => {
    used += Buffer.byteLength(JSON.stringify(w), 'utf8');
    widgets.push(w);
  };
  if (card.prompt) add(paragraph(card.prompt));
  const lines = card.lines.slice(0, 40);
  for (const [n, line] of lines.entries()) {
    const w = paragraph(line, 1_000);
    if (used + Buffer.byteLength(JSON.stringify(w), 'utf8') > TEXT_BUDGET_BYTES) {
      // The rest is on the review page.
      add(paragraph(`… ${lines.length - n} more on Details`));
      break;
    }
    add(w);
  }
  if (card.hint && !card.final) add(paragraph(`⚠️ ${card.hint}`, 500));
  add({ textParagraph: { text: `<i>${escapeChat(truncateUtf16(card.status, 500))}</i>` } });
  return widgets;
}

function message(card: Card, widgets: Json[], buttons: Json[]): ChatMessage {
  const sections: Json[] = [{ widgets }];
  if (buttons.length) sections.push({ widgets: [{ buttonList: { buttons } }] });
  return {
    fallbackText: truncateUtf16(card.title, 200),
    cardsV2: [
      {
        cardId: `hitl-${card.key}`,
        card: {
          header: {
            title: escapeChat(truncateUtf16(card.title, 200)),
            subtitle: escapeChat(truncateUtf16(card.status, 200)),
          },
          sections,
        },
      },
    ],
  };
}

const bytes = (m: ChatMessage) => Buffer.byteLength(JSON.stringify(m), 'utf8');

/** The ask's parts for `card`, or null when the card has no ask Chat can draw. */
function askParts(card: Card, strings?: AdapterStrings): AskParts | null {
  return card.ask && !card.final
    ? googlechatAsk(card, stringsOf(strings ? { strings } : null).asks, escapeChat)
    : null;
}

const fits = (m: ChatMessage, widgets: number) =>
  widgets <= GOOGLECHAT_CARD_WIDGETS_MAX && bytes(m) <= GOOGLECHAT_MESSAGE_MAX_BYTES - SIZE_MARGIN;

/**
 * The body of the dialog an ask's "Answer…" button opens: the ask's widgets and its submit buttons
 * (each with the payload and kind parameters, as on a card); null when the ask needs no dialog or
 * its widgets would not fit one.
 */
export function dialogCard(card: Card, strings?: AdapterStrings): Json | null {
  const ask = askParts(card, strings);
  if (!ask || !needsDialog(ask)) return null;
  const body = {
    header: { title: escapeChat(truncateUtf16(card.title, 200)) },
    sections: [
      { widgets: ask.widgets },
      {
        widgets: [{ buttonList: { buttons: ask.buttons.map((b) => button(b.action, b.params)) } }],
      },
    ],
  };
  const asMessage: ChatMessage = { cardsV2: [{ cardId: 'dialog', card: body }] };
  return fits(asMessage, ask.widgets.length + 1) ? body : null;
}

/** The message for `card`, within Chat's limits. */
export function renderCard(card: Card, strings?: AdapterStrings): ChatMessage {
  const text = textWidgets(card);
  const link = card.link
    ? [{ text: truncateUtf16(card.link.label, 40), onClick: { openLink: { url: card.link.url } } }]
    : [];
  if (card.final) return message(card, text, link);
  const ask = askParts(card, strings);
  const plain = (card.ask ? plainAskActions(card) : card.actions).map((a) => button(a));
  if (ask && needsDialog(ask) && dialogCard(card, strings)) {
    // Typing happens in a dialog; the card keeps what it says and the buttons that need no input.
    const said = ask.widgets.filter((w) => 'textParagraph' in w);
    const approval = card.ask?.content.type === 'approval';
    const open = openDialogButton(
      card.key,
      approval,
      HITL_FUNCTION,
      (strings ?? stringsOf(null)).asks.buttons,
    );
    return message(card, [...text, ...said], [...plain, open, ...link]);
  }
  if (ask) {
    const asked = message(
      card,
      [...text, ...ask.widgets],
      [...ask.buttons.map((b: AskButton) => button(b.action, b.params)), ...link],
    );
    if (fits(asked, text.length + ask.widgets.length + 1)) return asked;
  }
  return message(card, text, [...plain, ...link]);
}

/** A plain text message (a notice in the card's thread, a private answer to one person). */
export function textMessage(text: string, viewer?: string): ChatMessage {
  return {
    text: truncateUtf16(text, GOOGLECHAT_TEXT_MAX),
    ...(viewer ? { privateMessageViewer: { name: viewer } } : {}),
  };
}
