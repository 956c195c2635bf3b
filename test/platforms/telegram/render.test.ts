import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  renderCard,
  renderKeyboard,
  renderNotice,
  renderTapAnswer,
  TELEGRAM_CALLBACK_DATA_MAX_BYTES,
  TELEGRAM_TEXT_MAX_CHARS,
  truncateText,
} from '../../../platforms/telegram/render.ts';
import { PlatformError } from '../../../src/errors.ts';
import { parseTelegramHtml } from '../../fakes/telegram-html.ts';
import { makeCard } from './helpers.ts';

/** What a person would see: the text after Telegram's HTML parsing (the fake's parser). */
function visible(html: string): string {
  return parseTelegramHtml(html).text;
}

function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

describe('telegram render', () => {
  it('renders title bold, prompt, lines, hint and status in HTML mode', () => {
    const message = renderCard(makeCard({ hint: 'This cannot be undone.' }));
    expect(message.parse_mode).toBe('HTML');
    expect(message.text).toBe(
      [
        '<b>Approval needed</b>',
        'Deploy v2.4 to production?',
        'Service: billing\nRequested by: deploy-bot',
        '⚠️ This cannot be undone.',
        '<i>Waiting for a decision</i>',
      ].join('\n\n'),
    );
    expect(message.link_preview_options).toEqual({ is_disabled: true });
  });

  it('renders the keyboard: callback buttons in a row, then the Details URL button', () => {
    const { reply_markup } = renderCard(makeCard());
    expect(reply_markup.inline_keyboard).toEqual([
      [
        { text: 'Approve', callback_data: 'hitl:k7Qx2:approve', style: 'success' },
        { text: 'Reject', callback_data: 'hitl:k7Qx2:reject', style: 'danger' },
      ],
      [{ text: 'Details', url: 'https://service.example/review/case-123' }],
    ]);
  });

  it('wraps many actions into rows of three', () => {
    const actions = ['a', 'b', 'c', 'd', 'e'].map((name) => ({
      action: name,
      label: name.toUpperCase(),
      style: 'secondary' as const,
      payload: `hitl:k:${name}`,
    }));
    const rows = renderKeyboard(makeCard({ actions })).inline_keyboard;
    expect(rows.map((row) => row.length)).toEqual([3, 2, 1]);
    expect(rows[0]?.[0]).toEqual({ text: 'A', callback_data: 'hitl:k:a' });
  });

  it('leaves only the Details link on a final card', () => {
    const { reply_markup } = renderCard(makeCard({ final: true, status: 'Approved by Ann' }));
    expect(reply_markup.inline_keyboard).toEqual([
      [{ text: 'Details', url: 'https://service.example/review/case-123' }],
    ]);
    expect(renderCard(makeCard({ final: true, link: null })).reply_markup.inline_keyboard).toEqual(
      [],
    );
  });

  it("turns a decided card's buttons into its outcome, one disabled button (Bot API 10)", () => {
    const decided = (kind: 'approved' | 'rejected' | 'expired', label: string) =>
      renderKeyboard(makeCard({ final: true, status: 'Decided', outcome: { kind, label } }))
        .inline_keyboard;
    const details = [{ text: 'Details', url: 'https://service.example/review/case-123' }];
    expect(decided('approved', '✅ Approved')).toEqual([
      [{ text: '✅ Approved', disabled: {}, style: 'success' }],
      details,
    ]);
    expect(decided('rejected', '❌ Rejected')).toEqual([
      [{ text: '❌ Rejected', disabled: {}, style: 'danger' }],
      details,
    ]);
    expect(decided('expired', '⌛ Expired')).toEqual([
      [{ text: '⌛ Expired', disabled: {} }],
      details,
    ]);
    // For a Bot API server older than 10 (it cannot read `disabled`): Details only, as before.
    const card = makeCard({ final: true, outcome: { kind: 'approved', label: '✅ Approved' } });
    expect(renderKeyboard(card, { disabledButtons: false }).inline_keyboard).toEqual([details]);
  });

  it('drops a link Telegram would refuse instead of failing the whole message', () => {
    const card = makeCard({ link: { label: 'Details', url: 'javascript:alert(1)' } });
    expect(
      renderKeyboard(card)
        .inline_keyboard.flat()
        .some((b) => 'url' in b),
    ).toBe(false);
  });

  it('escapes everything from the card: <b>, & and > stay text', () => {
    const card = makeCard({
      title: 'A <b>bold</b> & title',
      prompt: 'Run <script>alert(1)</script> & rm -rf / > out? &amp; stays literal',
      lines: ['<i>not italic</i>'],
      hint: '1 < 2',
      status: 'Waiting & <u>',
    });
    const { text } = renderCard(card);
    expect(text).toContain('&lt;b&gt;bold&lt;/b&gt; &amp; title');
    expect(text).toContain('&amp;amp; stays literal');
    const shown = visible(text);
    expect(shown).toContain('A <b>bold</b> & title');
    expect(shown).toContain('Run <script>alert(1)</script> & rm -rf / > out? &amp; stays literal');
    expect(shown).toContain('<i>not italic</i>');
    expect(shown).toContain('Waiting & <u>');
    // The only markup is ours: the bold title and the italic status.
    expect(parseTelegramHtml(text).entities.map((e) => e.type)).toEqual(['bold', 'italic']);
  });

  it('keeps a prompt with <b>, &, emoji and a 5,000-character context line within 4096 visible characters', () => {
    const card = makeCard({
      prompt: `Ship it? <b>now</b> & 🚀 ${'👍🏽'.repeat(900)}`,
      lines: [`Diff: ${'x&<'.repeat(1700)}`, 'Owner: 👩‍💻 team & co'],
      hint: 'Irreversible ⚠️',
    });
    const { text } = renderCard(card);
    const shown = visible(text); // throws if the HTML were broken
    expect(shown.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX_CHARS);
    expect(hasLoneSurrogate(shown)).toBe(false);
    expect(shown.startsWith('Approval needed\n\nShip it? <b>now</b> & 🚀')).toBe(true);
    expect(shown).toContain('Diff: x&<');
    expect(shown).toContain('…');
    // Status and hint survive; the buttons are untouched.
    expect(shown.endsWith('⚠️ Irreversible ⚠️\n\nWaiting for a decision')).toBe(true);
    expect(renderCard(card).reply_markup).toEqual(renderCard(makeCard()).reply_markup);
    // No escape sequence was cut: every & in the source starts a whole entity.
    expect(text.match(/&(?!amp;|lt;|gt;)/g)).toBeNull();
  });

  it('fits a single huge prompt and many lines', () => {
    const card = makeCard({
      prompt: '&'.repeat(10_000),
      lines: Array.from({ length: 200 }, (_, i) => `line ${i} <${'y'.repeat(40)}>`),
    });
    const shown = visible(renderCard(card).text);
    expect(shown.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX_CHARS);
    expect(shown).toContain('line 0 <');
    expect(shown.endsWith('Waiting for a decision')).toBe(true);
  });

  it('truncates between graphemes, never inside a surrogate pair or emoji sequence', () => {
    expect(truncateText('abc', 3)).toBe('abc');
    expect(truncateText('abcdef', 4)).toBe('abc…');
    expect(truncateText('😀😀😀', 4)).toBe('😀…');
    expect(truncateText('👩‍💻👩‍💻', 6)).toBe('👩‍💻…');
    expect(truncateText('👩‍💻👩‍💻', 5)).toBe('…');
    expect(truncateText('a😀', 2)).toBe('a…');
    expect(truncateText('abc', 0)).toBe('');
  });

  it('escapes the three characters Telegram requires', () => {
    expect(escapeHtml(`<a href="x">&'</a>`)).toBe(`&lt;a href="x"&gt;&amp;'&lt;/a&gt;`);
  });

  it('accepts callback data up to 64 bytes and refuses longer with a clear error', () => {
    const key = 'k'.repeat(TELEGRAM_CALLBACK_DATA_MAX_BYTES - 'hitl::approve'.length);
    expect(() => renderCard(makeCard({ key }))).not.toThrow();
    // A 200-character case_id never goes into a payload as is: the engine's short key does.
    const caseId = `case-${'x'.repeat(195)}`;
    const short = renderCard(
      makeCard({ caseId, key: 'Ab3dE9' }),
    ).reply_markup.inline_keyboard.flat();
    for (const button of short) {
      if ('callback_data' in button) {
        expect(Buffer.byteLength(button.callback_data, 'utf8')).toBeLessThanOrEqual(64);
      }
    }
    // ... and were it used as the key, rendering would refuse rather than send an oversize payload.
    const oversize = () => renderCard(makeCard({ caseId, key: caseId }));
    expect(oversize).toThrow(PlatformError);
    expect(oversize).toThrow(
      /callback_data of the "approve" button is 213 bytes; Telegram allows 1-64/,
    );
    // Bytes, not characters: 20 three-byte characters are 60 bytes, plus the frame.
    expect(() => renderCard(makeCard({ key: '€'.repeat(20) }))).toThrow(/bytes/);
  });

  it('does not check callback data on a final card (there are no callback buttons)', () => {
    expect(() => renderCard(makeCard({ key: 'x'.repeat(100), final: true }))).not.toThrow();
  });

  it('shortens tap answers to 200 characters and neutralises mentions in notices', () => {
    expect(renderTapAnswer('y'.repeat(300))).toHaveLength(200);
    expect(renderTapAnswer('  ok  ')).toBe('ok');
    expect(renderNotice('Reminder for @ann: still waiting')).toBe(
      'Reminder for @\u2060ann: still waiting',
    );
    expect(renderNotice('x'.repeat(5000))).toHaveLength(TELEGRAM_TEXT_MAX_CHARS);
  });
});
