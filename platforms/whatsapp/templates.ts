/**
 * Business-initiated cards: outside the 24-hour customer-service window WhatsApp delivers only an
 * approved template, so a card becomes the template configured for its review type, its body
 * variables filled from the card and each quick-reply button carrying the payload of one action.
 * Pure: no I/O.
 */
import { truncateUtf16 } from '../../src/adapter-kit.ts';
import type { Card } from '../../src/render/card.ts';
import type { TemplateField, WhatsAppTemplate } from './config.ts';
import type { OutboundMessage } from './render.ts';

/** A body variable's length; the template's fixed text and every variable share 1,024 characters. */
const PARAM_MAX = 300;

/** WhatsApp refuses variables with new lines, tabs or more than 4 spaces in a row: one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim() || '-';
}

function field(card: Card, name: TemplateField): string {
  switch (name) {
    case 'title':
      return truncateUtf16(oneLine(card.title), PARAM_MAX);
    case 'prompt':
      return truncateUtf16(oneLine(card.prompt), PARAM_MAX);
    case 'status':
      return truncateUtf16(oneLine(card.status), PARAM_MAX);
    case 'link':
      // Never cut: a shortened link opens nothing.
      return card.link?.url ?? '-';
  }
}

/** The review type of a card (the key of WHATSAPP_TEMPLATES); "custom" when the card has none. */
export function reviewTypeOf(card: Card): string {
  return card.type ?? 'custom';
}

/** The card as its template message: body variables, then one payload per quick-reply button. */
export function renderTemplate(card: Card, template: WhatsAppTemplate): OutboundMessage {
  const components: Extract<OutboundMessage, { type: 'template' }>['template']['components'] = [];
  if (template.body.length > 0) {
    components.push({
      type: 'body',
      parameters: template.body.map((name) => ({ type: 'text', text: field(card, name) })),
    });
  }
  template.buttons.forEach((action, index) => {
    components.push({
      type: 'button',
      sub_type: 'quick_reply',
      index: String(index),
      parameters: [{ type: 'payload', payload: `hitl:${card.key}:${action}` }],
    });
  });
  return {
    type: 'template',
    template: { name: template.name, language: { code: template.language }, components },
  };
}

/** Why a card cannot be sent outside the window: said plainly, with what to configure. */
export function noTemplateReason(card: Card, target: string): string {
  const type = reviewTypeOf(card);
  return `the 24-hour customer-service window with ${target} is closed (the person has not written in 24 hours), and WHATSAPP_TEMPLATES names no approved template for "${type}" cases: configure one (platforms/whatsapp/README.md) or ask the person to message the business first`;
}
