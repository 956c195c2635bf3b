import { describe, expect, it } from 'vitest';
import {
  buttonStyle,
  escapeSlack,
  fitText,
  renderCard,
  renderNotice,
  SLACK_ACTIONS_MAX_ELEMENTS,
  SLACK_BUTTON_TEXT_MAX_CHARS,
  SLACK_HEADER_TEXT_MAX_CHARS,
  SLACK_SECTION_TEXT_MAX_CHARS,
} from '../../../platforms/slack/render.ts';
import { blocksProblem } from '../../fakes/slack-blocks.ts';
import { approvalCard } from './cards.ts';

type AnyBlock = Record<string, any>;

describe('slack render', () => {
  it('renders header, body section, status context and buttons with the Details link last', () => {
    const { text, blocks } = renderCard(approvalCard());
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'context', 'actions']);
    const [header, section, context, actions] = blocks as AnyBlock[];
    expect(header!.text).toEqual({ type: 'plain_text', text: 'Approval needed', emoji: true });
    expect(section!.text.text).toBe(
      'Deploy v2 to production?\n\nService: deploy-bot\nExpires: 2026-12-01 10:00 UTC',
    );
    expect(context!.elements.map((e: AnyBlock) => e.text)).toEqual([
      'Waiting for a decision',
      'Reject cannot be undone.',
    ]);
    const buttons = actions!.elements as AnyBlock[];
    expect(buttons.map((b) => b.action_id)).toEqual([
      'hitl:k7Qx2:approve',
      'hitl:k7Qx2:reject',
      'hitl:k7Qx2:edit',
      'hitl:link:k7Qx2',
    ]);
    expect(buttons.map((b) => b.value)).toEqual([
      'hitl:k7Qx2:approve',
      'hitl:k7Qx2:reject',
      'hitl:k7Qx2:edit',
      undefined,
    ]);
    expect(buttons.map((b) => b.style)).toEqual(['primary', 'danger', undefined, undefined]);
    expect(buttons[3]!.url).toBe('https://service.example/review/42');
    expect(text).toContain('Approval needed: Deploy v2 to production?');
    expect(blocksProblem(blocks)).toBeNull();
  });

  it("gives an irreversible action Slack's confirm dialog", () => {
    const buttons = (renderCard(approvalCard()).blocks[3] as AnyBlock).elements as AnyBlock[];
    expect(buttons[0]!.confirm).toBeUndefined();
    expect(buttons[1]!.confirm).toEqual({
      title: { type: 'plain_text', text: 'Reject?', emoji: false },
      text: { type: 'plain_text', text: 'This cannot be undone.', emoji: false },
      confirm: { type: 'plain_text', text: 'Reject', emoji: false },
      deny: { type: 'plain_text', text: 'Back', emoji: false },
      style: 'danger',
    });
  });

  it('styles by action name: primary, danger, or the default look', () => {
    const s = (action: string, style: 'primary' | 'danger' | 'secondary' = 'secondary') =>
      buttonStyle({ action, label: action, style, payload: `hitl:k:${action}` });
    expect(['approve', 'confirm', 'select', 'submit', 'retry'].map((a) => s(a))).toEqual(
      Array(5).fill('primary'),
    );
    expect(['reject', 'abort', 'cancel'].map((a) => s(a))).toEqual(Array(3).fill('danger'));
    expect(s('skip')).toBeUndefined();
    expect(s('x-custom', 'danger')).toBe('danger');
  });

  it('shows a service prompt that tries to ping or format as plain text', () => {
    const prompt = '<!channel> <@U123> & *bold*';
    const { text, blocks } = renderCard(
      approvalCard({ title: '<!here> title', prompt, lines: ['<https://evil.example|click>'] }),
    );
    const json = JSON.stringify(blocks);
    // No raw control sequence reaches Slack anywhere in the blocks or the fallback text.
    for (const raw of ['<!channel>', '<@U123>', '<!here>', '<https://']) {
      expect(json).not.toContain(raw);
      expect(text).not.toContain(raw);
    }
    const section = blocks[1] as AnyBlock;
    // plain_text: no bold, no links, no mentions; only Slack's three entities are escaped.
    expect(section.text.type).toBe('plain_text');
    expect(section.text.text).toBe(
      '&lt;!channel&gt; &lt;@U123&gt; &amp; *bold*\n\n&lt;https://evil.example|click&gt;',
    );
    expect((blocks[0] as AnyBlock).text.text).toBe('&lt;!here&gt; title');
    for (const block of blocks as AnyBlock[]) {
      if (block.text) expect(block.text.type).toBe('plain_text');
      for (const el of block.elements ?? []) if (el.type) expect(el.type).not.toBe('mrkdwn');
    }
  });

  it('cuts a long body to 3000 characters without splitting an entity or a surrogate pair', () => {
    const prompt = `${'&'.repeat(500)}${'😀'.repeat(2000)}`;
    const section = renderCard(approvalCard({ prompt, lines: [] })).blocks[1] as AnyBlock;
    const out: string = section.text.text;
    expect(out.length).toBeLessThanOrEqual(SLACK_SECTION_TEXT_MAX_CHARS);
    expect(out.endsWith('…')).toBe(true);
    // 500 entities (2500) + 249 emoji (2 UTF-16 units each, 498) + the ellipsis = 2999.
    expect(out).toBe(`${'&amp;'.repeat(500)}${'😀'.repeat(249)}…`);
    expect(fitText('a&b', 4)).toBe('a…');
    expect(fitText('a&b', 7)).toBe('a&amp;b');
  });

  it('cuts title and labels to their limits but never a payload', () => {
    const long = 'x'.repeat(400);
    const card = approvalCard({
      title: long,
      actions: [
        { action: 'approve', label: long, style: 'primary', payload: 'hitl:k7Qx2:approve' },
      ],
    });
    const blocks = renderCard(card).blocks as AnyBlock[];
    expect(blocks[0]!.text.text.length).toBe(SLACK_HEADER_TEXT_MAX_CHARS);
    const button = blocks[3]!.elements[0];
    expect(button.text.text.length).toBe(SLACK_BUTTON_TEXT_MAX_CHARS);
    expect(button.action_id).toBe('hitl:k7Qx2:approve');
    expect(blocksProblem(blocks)).toBeNull();

    const tooLong = `hitl:${'k'.repeat(300)}:approve`;
    expect(() =>
      renderCard(
        approvalCard({
          actions: [{ action: 'approve', label: 'A', style: 'primary', payload: tooLong }],
        }),
      ),
    ).toThrow(/payload/);
  });

  it('renders a final card without action buttons, keeping Details and the decision line', () => {
    const { blocks } = renderCard(
      approvalCard({ final: true, status: 'Approved by Ann Allowed at 10:15 UTC' }),
    );
    const all = blocks as AnyBlock[];
    const buttons = all.filter((b) => b.type === 'actions').flatMap((b) => b.elements);
    expect(buttons).toHaveLength(1);
    expect(buttons[0].url).toBe('https://service.example/review/42');
    const context = all.find((b) => b.type === 'context');
    expect(context!.elements.map((e: AnyBlock) => e.text)).toEqual([
      'Approved by Ann Allowed at 10:15 UTC',
    ]);
  });

  it('leaves out a Details URL longer than Slack accepts, and splits 25+ buttons', () => {
    const url = `https://service.example/${'p'.repeat(3000)}`;
    const actions = Array.from({ length: 30 }, (_, i) => ({
      action: `x-${i}`,
      label: `Option ${i}`,
      style: 'secondary' as const,
      payload: `hitl:k:x-${i}`,
    }));
    const blocks = renderCard(approvalCard({ link: { label: 'Details', url }, actions }))
      .blocks as AnyBlock[];
    const rows = blocks.filter((b) => b.type === 'actions');
    expect(rows.map((r) => r.elements.length)).toEqual([SLACK_ACTIONS_MAX_ELEMENTS, 5]);
    expect(JSON.stringify(blocks)).not.toContain('ppppp');
    expect(blocksProblem(blocks)).toBeNull();
  });

  it('draws a reminder as plain_text with a Details button (a too long URL as text)', () => {
    expect(escapeSlack('a & <b>')).toBe('a &amp; &lt;b&gt;');
    const notice = renderNotice('Reminder: *bold* <!channel> still waiting', {
      label: 'Details',
      url: 'https://s.example/r?a=1&b=2',
    });
    expect(notice.blocks[0]).toEqual({
      type: 'section',
      text: {
        type: 'plain_text',
        text: 'Reminder: *bold* &lt;!channel&gt; still waiting',
        emoji: false,
      },
    });
    expect(JSON.stringify(notice.blocks[1])).toContain('"url":"https://s.example/r?a=1&b=2"');
    expect(blocksProblem(notice.blocks)).toBeNull();
    expect(renderNotice('Still waiting', null).blocks).toHaveLength(1);
    const long = `https://s.example/${'x'.repeat(3000)}`;
    const text = renderNotice('Still waiting', { label: 'Details', url: long });
    expect(text.blocks).toHaveLength(1);
    expect(JSON.stringify(text.blocks[0])).toContain(`Details: ${long.slice(0, 100)}`);
  });
});
