/**
 * Cards that tell the outcome (issue 36), per platform renderer: no raw dump of `context.ask` on
 * any card; every final card of every kind states the answer in the person's words (labels, not
 * keys; the edited text, not the draft); approved, rejected, expired, cancelled and ended by the
 * escalation ladder told apart by colour or style and by words; an open ask shows what a person
 * must read (the whole confirm statement, read-only args, current values, choice labels).
 */
import { describe, expect, it } from 'vitest';
import { renderMessage } from '../../platforms/discord/render.ts';
import { renderCard as renderSlack } from '../../platforms/slack/render.ts';
import { renderTeamsCard } from '../../platforms/teams/render.ts';
import { renderCard as renderTelegram } from '../../platforms/telegram/render.ts';
import { renderWebMessage } from '../../platforms/web/render.ts';
import { ALL_KINDS, type AskKind, parseAskContent } from '../../src/asks/content.ts';
import { protocolOf } from '../../src/asks/protocol.ts';
import { renderCase } from '../../src/cases/render-case.ts';
import { FINAL_ANSWER_PLATFORM } from '../../src/policy/escalation.ts';
import type { Card } from '../../src/render/card.ts';
import { loadStrings } from '../../src/render/templates.ts';
import type { StoredCase } from '../../src/store/types.ts';
import { FINAL_ANSWERS as ANSWERS } from '../asks/final-answers.ts';
import { KINDS } from '../asks/fixtures.ts';
import { sampleCase } from '../contract/store-contract.ts';

const s = loadStrings('en');
type Json = Record<string, any>;

/** Every string a JSON value holds (Block Kit, Adaptive Card, embeds), payloads and URLs left out. */
function strings(v: unknown): string {
  if (typeof v === 'string') return /^(hitl|ha:|https?:)/.test(v) ? '' : v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map(strings).join('\n');
  if (v && typeof v === 'object')
    return Object.values(v as Json)
      .map(strings)
      .join('\n');
  return '';
}

const unescapeEntities = (t: string) =>
  t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** What a person reads of a card on each platform, as plain text. */
const PLATFORMS: Record<string, (card: Card) => string> = {
  telegram: (card) => {
    const m = renderTelegram(card);
    return unescapeEntities(`${m.text}\n${strings(m.reply_markup)}`);
  },
  // A table block is read row by row, its two cells as "Label: value" (what the row says).
  slack: (card) => {
    const m = renderSlack(card);
    const read = m.blocks.map((b) =>
      b.type === 'table'
        ? (b.rows as Array<Array<{ text: string }>>).map((r) => r.map((c) => c.text).join(': '))
        : b,
    );
    return unescapeEntities(strings([read, m.attachments ?? []]));
  },
  discord: (card) => {
    const m = renderMessage(card);
    return strings([m.content, m.embeds ?? [], m.components]).replace(/\\(.)/g, '$1');
  },
  teams: (card) => {
    const json = renderTeamsCard(card);
    return strings([json.body, json.actions]).replace(/\\(.)/g, '$1');
  },
  // The page draws an open ask's content itself (ask-controls.ts; the browser test shows it).
  web: (card) => {
    const m = renderWebMessage('m1', card, null);
    return `${m.text}\n${strings(m.ask ?? {})}`;
  },
};

/** The case of an ask of `kind`, open or answered with the fixture's answer. */
function askCase(kind: AskKind, answered: Json | null, content = KINDS[kind].content): StoredCase {
  const parsed = parseAskContent(content);
  if (!parsed.ok) throw new Error(`${kind}: ${JSON.stringify(parsed.issues)}`);
  const m = protocolOf(parsed.content);
  const c = sampleCase({ status: answered ? 'completed' : 'pending' });
  c.doc.hitl = {
    ...c.doc.hitl,
    type: m.type,
    prompt: parsed.content.prompt,
    context: { ask: parsed.content },
    inline_actions: m.inline_actions,
    submit_url: 'https://svc.example/submit',
  };
  if (answered) {
    c.doc.result = answered as StoredCase['doc']['result'];
    c.doc.submitted_by = { platform: 'slack', platform_user_id: 'U1', display_name: 'Ann' };
  } else c.doc.inline_submit = true;
  return c;
}

function cardOf(c: StoredCase): Card {
  const open = c.status === 'pending';
  return renderCase(c, { submit_token: open ? 'tok' : null, review_url: 'https://svc/r' }, s, {
    detailsUrl: 'https://relay.example/r/k/sig',
  });
}

const DUMP = /Sub type|Type (approval|decision|context|edit);/;

describe.each(Object.entries(PLATFORMS))('%s', (_name, read) => {
  it.each(ALL_KINDS)('%s: the open card has no raw dump line', (kind) => {
    expect(read(cardOf(askCase(kind, null)))).not.toMatch(DUMP);
  });

  it.each(ALL_KINDS)('%s: the final card states the answer in the person’s words', (kind) => {
    const f = KINDS[kind];
    const text = read(cardOf(askCase(kind, { action: f.answer.action, data: f.result })));
    for (const shown of ANSWERS[kind].shows) expect(text).toContain(shown);
    for (const hidden of ANSWERS[kind].not ?? []) expect(text).not.toContain(hidden);
    expect(text).not.toMatch(DUMP);
  });

  it('an open confirm shows its whole statement; tool args, read-only ones too; current values', () => {
    const statement = `${'Every customer record older than 90 days is deleted for good. '.repeat(9)}End.`;
    const confirm = { ...KINDS['context.confirm'].content, statement };
    expect(statement.length).toBeGreaterThan(550);
    expect(read(cardOf(askCase('context.confirm', null, confirm))).replace(/\s+/g, ' ')).toContain(
      statement.trim(),
    );
    const args = read(cardOf(askCase('edit.tool_args', null)));
    for (const shown of ['run_sql', 'Target Table', 'orders', 'Row Limit', '1000'])
      expect(args).toContain(shown);
    const modify = read(cardOf(askCase('approval.modify', null)));
    for (const shown of ['Refund Amount (USD)', '75']) expect(modify).toContain(shown);
  });

  it('an open approval shows the agent’s choice labels, not Approve / Reject', () => {
    const text = read(cardOf(askCase('approval.binary', null)));
    expect(text).toContain('Send it');
    expect(text).toContain('Cancel');
  });

  it('a reason the responder gave is on the final card', () => {
    const c = sampleCase({ status: 'completed' });
    c.doc.result = { action: 'reject', data: { reason: 'Wrong recipient list' } };
    expect(read(cardOf(c))).toContain('Reason: Wrong recipient list');
  });
});

/** A service's approval ended each way, and its card. */
function ended(how: 'approved' | 'rejected' | 'expired' | 'cancelled' | 'policy'): Card {
  const status = how === 'expired' ? 'expired' : how === 'cancelled' ? 'cancelled' : 'completed';
  const c = sampleCase({ status });
  if (status === 'completed')
    c.doc.result = { action: how === 'approved' ? 'approve' : 'reject', data: {} };
  c.doc.submitted_by =
    how === 'policy'
      ? { platform: FINAL_ANSWER_PLATFORM, platform_user_id: 'escalation-final' }
      : { platform: 'slack', platform_user_id: 'U1', display_name: 'Ann' };
  return cardOf(c);
}

const ENDINGS = ['approved', 'rejected', 'expired', 'cancelled', 'policy'] as const;

describe('approved, rejected, expired, cancelled and policy-ended differ at a glance', () => {
  it('in words on every platform', () => {
    const words = ['✅ Approved', '❌ Rejected', '⌛ Expired', '🚫 Cancelled', '⚖️ Ended by'];
    for (const read of Object.values(PLATFORMS))
      ENDINGS.forEach((how, i) => {
        expect(read(ended(how))).toContain(words[i]);
      });
  });

  it('by colour or style where the platform has one', () => {
    const looks = {
      slack: (c: Card) => renderSlack(c).attachments?.[0]?.color,
      discord: (c: Card) => renderMessage(c).embeds?.[0]?.color,
      teams: (c: Card) => (renderTeamsCard(c).body[0] as Json).style,
      web: (c: Card) => renderWebMessage('m', c, null).outcome?.kind,
    };
    for (const [name, look] of Object.entries(looks)) {
      const seen = ENDINGS.map((how) => look(ended(how)));
      expect(
        seen.every((x) => x !== undefined),
        name,
      ).toBe(true);
      // Approved and rejected never look alike; nor do expired and approved.
      expect(seen[0], name).not.toBe(seen[1]);
      expect(seen[0], name).not.toBe(seen[2]);
      expect(seen[1], name).not.toBe(seen[3]);
    }
  });
});

describe('a service case’s answer in the person’s words', () => {
  it('a selection whose options are in context.items ends with their labels, not raw ids', () => {
    const c = sampleCase({ status: 'completed' });
    c.doc.hitl = {
      ...c.doc.hitl,
      type: 'selection',
      context: {
        items: [
          { id: 'job_1', title: 'Senior Frontend Engineer' },
          { id: 'job_2', title: 'Staff Developer' },
        ],
      },
    };
    c.doc.result = { action: 'select', data: { selected: ['job_2'] } };
    const card = cardOf(c);
    for (const read of Object.values(PLATFORMS)) {
      expect(read(card)).toContain('Selected: Staff Developer');
      expect(read(card)).not.toContain('job_2');
    }
  });
});
