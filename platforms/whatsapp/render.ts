/**
 * Card -> WhatsApp message (the body of a Graph API `/messages` POST, without `to`). Pure: no I/O.
 *
 * The platform's rules shape the card: at most 3 reply buttons with titles of at most 20
 * characters, so more choices become a list message (at most 10 rows) and more than that leaves
 * Details only; reply buttons and a URL button never share a message, so the Details link is the
 * body's last line next to buttons, and a CTA URL button when the card has no buttons at all.
 * WhatsApp markup is *bold* and _italic_; there is no escape, so service text is sent as it is.
 */
import { truncateUtf16 } from '../../src/adapter-kit.ts';
import type { AskContent } from '../../src/asks/content.ts';
import { answerAction } from '../../src/asks/inputs.ts';
import type { Card, CardLink } from '../../src/render/card.ts';

/** Body of an interactive message (button, list, cta_url). */
export const WHATSAPP_INTERACTIVE_BODY_MAX = 1024;
/** Body of a text message. */
export const WHATSAPP_TEXT_MAX = 4096;
/** Reply buttons per message. */
export const WHATSAPP_MAX_BUTTONS = 3;
/** A reply button's title; also a list's button and a CTA URL's display text. */
export const WHATSAPP_BUTTON_TITLE_MAX = 20;
/** Rows of a list message (over all sections). */
export const WHATSAPP_MAX_LIST_ROWS = 10;
export const WHATSAPP_ROW_TITLE_MAX = 24;
export const WHATSAPP_ROW_DESCRIPTION_MAX = 72;

/** Prefix of the reply ids of an ask's own choices: `ha:<key>:<op>:<n>` (never a token). */
export const ASK_REPLY_PREFIX = 'ha:';

/** The message parts the adapter sends (the Graph API's wire format). */
export type OutboundMessage = (
  | { type: 'text'; text: { body: string; preview_url: boolean } }
  | { type: 'interactive'; interactive: Interactive }
  | { type: 'template'; template: TemplateMessage }
) & { context?: { message_id: string } };

export type Interactive =
  | {
      type: 'button';
      body: { text: string };
      action: { buttons: Array<{ type: 'reply'; reply: { id: string; title: string } }> };
    }
  | {
      type: 'list';
      body: { text: string };
      action: {
        button: string;
        sections: Array<{ rows: Array<{ id: string; title: string; description?: string }> }>;
      };
    }
  | {
      type: 'cta_url';
      body: { text: string };
      action: { name: 'cta_url'; parameters: { display_text: string; url: string } };
    };

export interface TemplateMessage {
  name: string;
  language: { code: string };
  components: Array<
    | { type: 'body'; parameters: Array<{ type: 'text'; text: string }> }
    | {
        type: 'button';
        sub_type: 'quick_reply';
        index: string;
        parameters: Array<{ type: 'payload'; payload: string }>;
      }
  >;
}

/** One thing a person can pick on the card: a reply button or a list row. */
export interface Pick {
  id: string;
  title: string;
  description?: string;
  /** For an ask's own choice: the typed answer a tap on it submits. */
  answer?: { action: string; data: Record<string, unknown> };
}

function typed(ask: AskContent, data: Record<string, unknown>): Pick['answer'] {
  return { action: answerAction(ask, data), data };
}

/** The ask's own choices WhatsApp can draw (approvals' choices, a single decision); null: none. */
function askPicks(key: string, ask: AskContent): Pick[] | null {
  if (ask.type === 'approval') {
    return ask.choices.map((c, n) => ({
      id: `${ASK_REPLY_PREFIX}${key}:c:${n}`,
      title: c.label,
      answer: typed(ask, { decision: c.key }),
    }));
  }
  if (ask.type === 'decision' && ask.sub_type === 'single') {
    return ask.options.map((o, n) => ({
      id: `${ASK_REPLY_PREFIX}${key}:p:${n}`,
      title: o.label,
      ...(o.description ? { description: o.description } : {}),
      answer: typed(ask, { selected: o.key }),
    }));
  }
  // A confirmation is answered with the card's own Confirm / Cancel.
  if (ask.type === 'context' && ask.sub_type === 'confirm') return null;
  return [];
}

/** What the card offers in the chat: its buttons or list rows; none on a final card. */
export function cardPicks(card: Card): Pick[] {
  if (card.final) return [];
  const fromAsk = card.ask ? askPicks(card.key, card.ask.content) : null;
  const picks = fromAsk ?? card.actions.map((a) => ({ id: a.payload, title: a.label }));
  // More than a list holds: Details only (the review page takes any answer).
  return picks.length > WHATSAPP_MAX_LIST_ROWS ? [] : picks;
}

/** A URL WhatsApp can open (http or https), or null. */
function openable(link: CardLink | null): CardLink | null {
  if (!link) return null;
  try {
    const url = new URL(link.url);
    return url.protocol === 'https:' || url.protocol === 'http:' ? link : null;
  } catch {
    return null;
  }
}

/** The card's text within `max` characters: title, prompt, lines, hint, status, then the link. */
export function cardText(card: Card, max: number, linkInBody: boolean): string {
  const link = openable(card.link);
  const tail = [
    card.hint && !card.final ? `⚠️ ${truncateUtf16(card.hint.trim(), 300)}` : '',
    card.status.trim() ? `_${truncateUtf16(card.status.trim(), 300)}_` : '',
    linkInBody && link ? `${truncateUtf16(link.label, 40)}: ${link.url}` : '',
  ].filter(Boolean);
  const title = card.title.trim() ? `*${truncateUtf16(card.title.trim(), 200)}*` : '';
  const fixed = [title, ...tail].join('\n\n');
  // What the prompt and the lines may use; the link and the status always stay whole.
  const room = max - fixed.length - 4;
  const lines = card.lines.map((l) => l.trim()).filter(Boolean);
  const middle = [card.prompt.trim(), lines.join('\n')].filter(Boolean).join('\n\n');
  const body = room > 8 ? truncateUtf16(middle, room) : '';
  const text = [title, body, ...tail].filter(Boolean).join('\n\n');
  return truncateUtf16(text, max) || '…';
}

/**
 * The card as one message: reply buttons (1-3 picks), a list (4-10 picks) or, with nothing to pick,
 * a CTA URL button to Details (a plain text when there is no link).
 */
export function renderCard(card: Card, listButton: string): OutboundMessage {
  const picks = cardPicks(card);
  const link = openable(card.link);
  if (picks.length === 0) {
    if (!link) return textMessage(cardText(card, WHATSAPP_TEXT_MAX, false));
    return {
      type: 'interactive',
      interactive: {
        type: 'cta_url',
        body: { text: cardText(card, WHATSAPP_INTERACTIVE_BODY_MAX, false) },
        action: {
          name: 'cta_url',
          parameters: {
            display_text: truncateUtf16(link.label, WHATSAPP_BUTTON_TITLE_MAX),
            url: link.url,
          },
        },
      },
    };
  }
  const text = cardText(card, WHATSAPP_INTERACTIVE_BODY_MAX, true);
  if (picks.length <= WHATSAPP_MAX_BUTTONS) {
    return {
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text },
        action: {
          buttons: picks.map((p) => ({
            type: 'reply',
            reply: { id: p.id, title: truncateUtf16(p.title, WHATSAPP_BUTTON_TITLE_MAX) },
          })),
        },
      },
    };
  }
  return {
    type: 'interactive',
    interactive: {
      type: 'list',
      body: { text },
      action: {
        button: truncateUtf16(listButton, WHATSAPP_BUTTON_TITLE_MAX),
        sections: [
          {
            rows: picks.map((p) => ({
              id: p.id,
              title: truncateUtf16(p.title, WHATSAPP_ROW_TITLE_MAX),
              ...(p.description
                ? { description: truncateUtf16(p.description, WHATSAPP_ROW_DESCRIPTION_MAX) }
                : {}),
            })),
          },
        ],
      },
    },
  };
}

/** A plain text message (no link preview), optionally quoting `replyTo`. */
export function textMessage(body: string, replyTo?: string): OutboundMessage {
  return {
    type: 'text',
    text: { body: truncateUtf16(body.trim(), WHATSAPP_TEXT_MAX) || '…', preview_url: false },
    ...(replyTo ? { context: { message_id: replyTo } } : {}),
  };
}

/** The end of a case: a reply quoting the card, stating its outcome (sent messages cannot change). */
export function renderOutcome(card: Card, cardMessageId: string): OutboundMessage {
  const title = card.title.trim() ? `*${truncateUtf16(card.title.trim(), 200)}*\n` : '';
  return textMessage(`${title}${card.status.trim()}`, cardMessageId);
}
