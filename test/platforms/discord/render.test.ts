import { describe, expect, it } from 'vitest';
import { escapeMarkdown, truncateEscaped } from '../../../platforms/discord/markdown.ts';
import {
  DISCORD_BUTTON_LABEL_MAX_CHARS,
  DISCORD_CONTENT_MAX_CHARS,
  DISCORD_CUSTOM_ID_MAX_CHARS,
  renderMessage,
  renderNotice,
} from '../../../platforms/discord/render.ts';
import { PlatformError } from '../../../src/errors.ts';
import { visibleText } from './harness.ts';
import { makeCard } from './helpers.ts';

describe('discord markdown escaping', () => {
  it('shows @everyone **x** as text and pings nobody', () => {
    const out = escapeMarkdown('@everyone **x**');
    expect(out).not.toContain('@everyone');
    expect(out).toBe('@\u200beveryone \\*\\*x\\*\\*');
    expect(visibleText(out)).toBe('@everyone **x**');
  });

  it('escapes inline markup, masked links and mention syntax', () => {
    const text = '_a_ ~~b~~ `c` ||d|| [e](https://x.example) <@123> <#456> <@&789> \\';
    const out = escapeMarkdown(text);
    for (const raw of ['_a_', '~~b~~', '`c`', '||d||', '[e]', '<@123>'])
      expect(out).not.toContain(raw);
    expect(visibleText(out)).toBe(text);
  });

  it('escapes quote, header, subtext and list markers only at line start', () => {
    const out = escapeMarkdown('> quote\n# head\n-# sub\n- item\n  >>> deep\na - b > c # d');
    expect(out).toBe('\\> quote\n\\# head\n\\-# sub\n\\- item\n  \\>>> deep\na - b > c # d');
  });

  it('finding 10 (Discord list markers): escapes "1." ordered-list markers at line start only', () => {
    const out = escapeMarkdown('1. first\n  12. second\nversion 2.5 is out\n3.no space');
    expect(out).toBe('1\\. first\n  12\\. second\nversion 2.5 is out\n3.no space');
    expect(visibleText(out)).toBe('1. first\n  12. second\nversion 2.5 is out\n3.no space');
  });

  it('keeps URLs intact so they still link', () => {
    const out = escapeMarkdown('see https://x.example/a_b*c?q=1_2 now_ok');
    expect(out).toContain('https://x.example/a_b*c?q=1_2');
    expect(out).toContain('now\\_ok');
  });

  it('never cuts an escape in half or a surrogate pair', () => {
    expect(truncateEscaped('ab\\*cd', 4)).toBe('ab…');
    expect(truncateEscaped('ab😀cd', 4)).toBe('ab…');
    expect(truncateEscaped('short', 10)).toBe('short');
  });
});

describe('renderMessage', () => {
  it('renders a bold title, prompt, lines, status and buttons with no mentions allowed', () => {
    const msg = renderMessage(makeCard({ hint: 'This cannot be undone' }));
    expect(msg.allowed_mentions).toEqual({ parse: [] });
    expect(msg.content.startsWith('**Approval needed**')).toBe(true);
    expect(msg.content).toContain('Deploy v2.3 to production?');
    expect(msg.content).toContain('Service: deploy-bot');
    expect(msg.content).toContain('⚠️ This cannot be undone');
    expect(msg.content).toContain('*Waiting for a decision*');
    expect(msg.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, style: 1, label: 'Approve', custom_id: 'hitl:k7f3q:approve' },
          { type: 2, style: 4, label: 'Reject', custom_id: 'hitl:k7f3q:reject' },
          { type: 2, style: 5, label: 'Details', url: 'https://service.example/review/abc' },
        ],
      },
    ]);
  });

  it('maps styles and wraps buttons five to a row', () => {
    const actions = Array.from({ length: 7 }, (_, i) => ({
      action: `opt${i}`,
      label: `Option ${i}`,
      style: (['primary', 'danger', 'secondary'] as const)[i % 3]!,
      payload: `hitl:k7f3q:opt${i}`,
    }));
    const msg = renderMessage(makeCard({ actions }));
    expect(msg.components.map((row) => row.components.length)).toEqual([5, 3]);
    expect(msg.components[0]!.components.map((b) => ('style' in b ? b.style : null))).toEqual([
      1, 4, 2, 1, 4,
    ]);
  });

  it('keeps the content within 2000 characters and cuts the prompt, not the title or status', () => {
    const msg = renderMessage(
      makeCard({
        prompt: '*'.repeat(5000),
        lines: Array.from({ length: 100 }, (_, i) => `line ${i}`),
      }),
    );
    expect(msg.content.length).toBeLessThanOrEqual(DISCORD_CONTENT_MAX_CHARS);
    expect(msg.content.startsWith('**Approval needed**')).toBe(true);
    expect(msg.content.endsWith('*Waiting for a decision*')).toBe(true);
    expect(msg.content).toContain('line 0');
    expect(msg.content).not.toMatch(/(^|[^\\])(\\\\)*\\…/);
  });

  it('checks custom_id length and uniqueness at render time and never cuts a payload', () => {
    const long = `hitl:${'k'.repeat(DISCORD_CUSTOM_ID_MAX_CHARS)}:approve`;
    const tooLong = makeCard({
      actions: [{ action: 'approve', label: 'A', style: 'primary', payload: long }],
    });
    expect(() => renderMessage(tooLong)).toThrow(PlatformError);
    const dup = makeCard({
      actions: [
        { action: 'approve', label: 'A', style: 'primary', payload: 'hitl:k:approve' },
        { action: 'approve', label: 'B', style: 'primary', payload: 'hitl:k:approve' },
      ],
    });
    expect(() => renderMessage(dup)).toThrow(/unique/);
    for (const row of renderMessage(makeCard()).components) {
      for (const b of row.components) {
        if ('custom_id' in b)
          expect(b.custom_id.length).toBeLessThanOrEqual(DISCORD_CUSTOM_ID_MAX_CHARS);
      }
    }
  });

  it('refuses more buttons than five rows hold', () => {
    const actions = Array.from({ length: 25 }, (_, i) => ({
      action: `o${i}`,
      label: `O${i}`,
      style: 'secondary' as const,
      payload: `hitl:k:o${i}`,
    }));
    expect(() => renderMessage(makeCard({ actions }))).toThrow(/rows/);
    expect(renderMessage(makeCard({ actions: actions.slice(0, 24) })).components).toHaveLength(5);
  });

  it('cuts labels to 80 characters', () => {
    const msg = renderMessage(
      makeCard({
        actions: [
          {
            action: 'approve',
            label: 'A'.repeat(200),
            style: 'primary',
            payload: 'hitl:k:approve',
          },
        ],
      }),
    );
    const first = msg.components[0]!.components[0]!;
    const label = 'label' in first ? first.label : '';
    expect(label.length).toBe(DISCORD_BUTTON_LABEL_MAX_CHARS);
    expect(label.endsWith('…')).toBe(true);
  });

  it('final card keeps only the Details link, or no components at all', () => {
    const final = renderMessage(makeCard({ final: true, status: 'Approved by Ann' }));
    expect(final.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, style: 5, label: 'Details', url: 'https://service.example/review/abc' },
        ],
      },
    ]);
    expect(renderMessage(makeCard({ final: true, link: null })).components).toEqual([]);
  });

  it('shows a Details URL over 512 characters as text instead of a button', () => {
    const url = `https://service.example/${'a'.repeat(600)}`;
    const msg = renderMessage(makeCard({ link: { label: 'Details', url } }));
    expect(msg.components[0]!.components.every((b) => !('style' in b) || b.style !== 5)).toBe(true);
    expect(msg.content).toContain(`<${url}>`);
  });

  it('renders notices escaped, with an optional link button', () => {
    const notice = renderNotice('Reminder: @here *still* waiting', {
      label: 'Open',
      url: 'https://x.example',
    });
    expect(notice.content).toBe('Reminder: @\u200bhere \\*still\\* waiting');
    expect(notice.components[0]!.components[0]).toMatchObject({
      style: 5,
      url: 'https://x.example',
    });
    expect(renderNotice('plain', null).components).toEqual([]);
  });
});
