/** Discord markdown: escaping untrusted text and cutting it without breaking an escape. */
import { truncateUtf16 } from '../../src/adapter-kit.ts';

/** Zero-width space: placed after every `@` so `@everyone` / `@here` stay text even if allowed_mentions were ignored. */
const ZWSP = '\u200b';

// Discord's auto-link rule wins over markdown, so a backslash inside a URL would become part of the
// link. URLs are therefore kept as they are (a URL cannot ping anyone or start a markup span).
const URL_PATTERN = /https?:\/\/[^\s<]+[^<.,:;"')\]\s]/g;

// Characters that open markup anywhere in a line: bold/italic, underline, strike, code, spoilers,
// masked links `[x](url)`, mentions / channels / timestamps `<@1>` `<#1>` `<t:1>`.
const INLINE = /[\\*_~`|[\]<]/g;

// Markup that only counts at the start of a line: quotes `>`/`>>>`, headers `#`, subtext `-#`, lists `-`.
const LINE_START = /^(\s*)([>#-])/gm;

// Ordered-list markers `1. ` at the start of a line (the dot is what makes the list).
const ORDERED = /^(\s*\d+)\.(?=\s)/gm;

function escapePlain(text: string): string {
  return text
    .replace(INLINE, '\\$&')
    .replace(LINE_START, '$1\\$2')
    .replace(ORDERED, '$1\\.')
    .replace(/@/g, `@${ZWSP}`);
}

/** Escapes plain text from a service so Discord shows it literally and it mentions nobody. */
export function escapeMarkdown(text: string): string {
  const normalised = text.replace(/\r\n?/g, '\n');
  let out = '';
  let last = 0;
  for (const match of normalised.matchAll(URL_PATTERN)) {
    const start = match.index ?? 0;
    out += escapePlain(normalised.slice(last, start)) + match[0];
    last = start + match[0].length;
  }
  // A piece after a URL may get a needless `\-` at its start; Discord shows that as `-`.
  return out + escapePlain(normalised.slice(last));
}

/**
 * Cuts already-escaped text to at most `max` characters (UTF-16 units, as Discord counts them),
 * ending with an ellipsis. Never leaves a dangling backslash (it would escape the ellipsis) or half
 * of a surrogate pair.
 */
export function truncateEscaped(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let cut = text.slice(0, max - 1);
  const lastCode = cut.charCodeAt(cut.length - 1);
  if (lastCode >= 0xd800 && lastCode <= 0xdbff) cut = cut.slice(0, -1);
  const trailing = /\\+$/.exec(cut)?.[0].length ?? 0;
  if (trailing % 2 === 1) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

/** Truncates plain text (labels) to `max` characters with an ellipsis, keeping graphemes whole. */
export const truncatePlain = truncateUtf16;
