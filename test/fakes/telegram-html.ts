/**
 * Telegram's HTML parse mode, as the fake Bot API applies it: the supported tags become entities,
 * the four named entities and numeric ones are decoded, and anything else that looks like a tag is
 * refused with Telegram's "Bad Request: can't parse entities" error.
 */
import type { MessageEntity } from 'grammy/types';

/** A 400 the fake answers with, worded like Telegram's. */
export class TelegramParseError extends Error {}

const ENTITY_TYPES: Record<string, MessageEntity['type']> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  'tg-spoiler': 'spoiler',
  span: 'spoiler',
  a: 'text_link',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
};

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

const TAG = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)((?:\s[^<>]*)?)>/;
const ENTITY = /^&(lt|gt|amp|quot|#\d{1,7}|#x[0-9A-Fa-f]{1,6});/;

interface Open {
  name: string;
  offset: number;
  url?: string;
}

function byteOffset(html: string, index: number): number {
  return Buffer.byteLength(html.slice(0, index), 'utf8');
}

/** Parses an HTML-mode text into the visible text and its entities (offsets in UTF-16 units). */
export function parseTelegramHtml(html: string): { text: string; entities: MessageEntity[] } {
  let text = '';
  const entities: MessageEntity[] = [];
  const open: Open[] = [];
  let i = 0;
  while (i < html.length) {
    const ch = html[i] as string;
    if (ch === '<') {
      const tag = TAG.exec(html.slice(i, i + 2048));
      const at = byteOffset(html, i);
      if (!tag) {
        throw new TelegramParseError(
          `Bad Request: can't parse entities: Unsupported start tag at byte offset ${at}`,
        );
      }
      const [whole, slash, rawName, attrs] = tag as unknown as [string, string, string, string];
      const name = rawName.toLowerCase();
      if (!(name in ENTITY_TYPES) || (name === 'span' && !/class\s*=\s*"tg-spoiler"/.test(attrs))) {
        throw new TelegramParseError(
          `Bad Request: can't parse entities: Unsupported start tag "${name}" at byte offset ${at}`,
        );
      }
      if (slash) {
        const top = open.pop();
        if (!top || top.name !== name) {
          throw new TelegramParseError(
            `Bad Request: can't parse entities: Unmatched end tag at byte offset ${at}, expected "</${top?.name ?? ''}>", found "</${name}>"`,
          );
        }
        const length = text.length - top.offset;
        if (length > 0) {
          const type = ENTITY_TYPES[name] as MessageEntity['type'];
          entities.push({
            type,
            offset: top.offset,
            length,
            ...(top.url ? { url: top.url } : {}),
          } as MessageEntity);
        }
      } else {
        const href = /href\s*=\s*"([^"]*)"/.exec(attrs)?.[1];
        open.push({ name, offset: text.length, ...(href ? { url: href } : {}) });
      }
      i += whole.length;
      continue;
    }
    if (ch === '&') {
      const entity = ENTITY.exec(html.slice(i, i + 12));
      if (entity) {
        const body = entity[1] as string;
        text += body.startsWith('#x')
          ? String.fromCodePoint(Number.parseInt(body.slice(2), 16))
          : body.startsWith('#')
            ? String.fromCodePoint(Number(body.slice(1)))
            : (NAMED[body] as string);
        i += entity[0].length;
        continue;
      }
    }
    text += ch;
    i += 1;
  }
  const unclosed = open.pop();
  if (unclosed) {
    throw new TelegramParseError(
      `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${unclosed.name}"`,
    );
  }
  entities.sort((a, b) => a.offset - b.offset);
  return { text, entities };
}
