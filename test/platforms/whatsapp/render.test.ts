/** Card -> WhatsApp message, checked against the fake Graph API's rules (test/fakes/whatsapp-rules.ts). */
import { describe, expect, it } from 'vitest';
import { renderCard, renderOutcome } from '../../../platforms/whatsapp/render.ts';
import { renderTemplate } from '../../../platforms/whatsapp/templates.ts';
import type { Card } from '../../../src/render/card.ts';
import { checkMessage } from '../../fakes/whatsapp-rules.ts';

const LINK = { label: 'Details', url: 'https://relay.example/r/abc123?s=sig' };

function card(actions: string[], over: Partial<Card> = {}): Card {
  return {
    caseId: 'c1',
    key: 'k7',
    title: 'Approval needed',
    prompt: 'Deploy v2.4 to production?',
    lines: ['Service: checkout', 'Risk: medium'],
    hint: null,
    actions: actions.map((a) => ({
      action: a,
      label: `${a[0]!.toUpperCase()}${a.slice(1)} with a label far too long for WhatsApp`,
      style: 'secondary',
      payload: `hitl:k7:${a}`,
    })),
    link: LINK,
    status: 'Waiting for a decision',
    final: false,
    type: 'approval',
    ...over,
  };
}

const valid = (m: object) =>
  checkMessage({ messaging_product: 'whatsapp', to: '4915112345678', ...m }, []);

describe('the card as a WhatsApp message', () => {
  it('1-3 actions: reply buttons (titles cut to 20), the Details link as the last body line', () => {
    const m = renderCard(card(['approve', 'reject']), 'Choose one…') as any;
    expect(valid(m)).toBeNull();
    expect(m.interactive.type).toBe('button');
    expect(m.interactive.action.buttons.map((b: any) => b.reply.id)).toEqual([
      'hitl:k7:approve',
      'hitl:k7:reject',
    ]);
    for (const b of m.interactive.action.buttons)
      expect([...b.reply.title].length).toBeLessThanOrEqual(20);
    expect(m.interactive.body.text.endsWith(`Details: ${LINK.url}`)).toBe(true);
  });

  it('4-10 actions: a list message; more than 10: Details only', () => {
    const five = renderCard(card(['a', 'b', 'c', 'd', 'e']), 'Choose one…') as any;
    expect(valid(five)).toBeNull();
    expect(five.interactive.type).toBe('list');
    expect(five.interactive.action.sections[0].rows).toHaveLength(5);
    const many = renderCard(card('abcdefghijkl'.split('')), 'Choose one…') as any;
    expect(valid(many)).toBeNull();
    expect(many.interactive.type).toBe('cta_url');
    expect(many.interactive.action.parameters.url).toBe(LINK.url);
  });

  it('the fake refuses what the renderer avoids: 4 reply buttons, a 21-character title', () => {
    const m = renderCard(card(['approve', 'reject']), 'x') as any;
    const four = structuredClone(m);
    four.interactive.action.buttons.push(
      { type: 'reply', reply: { id: 'x1', title: 'X' } },
      { type: 'reply', reply: { id: 'x2', title: 'Y' } },
    );
    expect(valid(four)?.code).toBe(131009);
    const long = structuredClone(m);
    long.interactive.action.buttons[0].reply.title = 'A'.repeat(21);
    expect(valid(long)?.details).toMatch(/1-20/);
  });

  it('a huge prompt is cut; the status and the link stay whole within 1,024 characters', () => {
    const m = renderCard(card(['approve'], { prompt: 'p'.repeat(5000) }), 'x') as any;
    expect(valid(m)).toBeNull();
    expect([...m.interactive.body.text].length).toBeLessThanOrEqual(1024);
    expect(m.interactive.body.text).toContain('_Waiting for a decision_');
    expect(m.interactive.body.text).toContain(LINK.url);
  });

  it("an ask's single decision: a list of its options, each carrying its typed answer", () => {
    const ask = {
      kind: 'decision.single' as const,
      content: {
        type: 'decision',
        sub_type: 'single',
        prompt: 'Which region?',
        options: ['eu-west', 'us-east', 'ap-south', 'sa-east'].map((k) => ({
          key: k,
          label: k,
          irreversible: false,
        })),
      } as any,
    };
    const m = renderCard(card(['select'], { ask }), 'Choose one…') as any;
    expect(valid(m)).toBeNull();
    expect(m.interactive.type).toBe('list');
    expect(m.interactive.action.sections[0].rows.map((r: any) => r.id)).toEqual([
      'ha:k7:p:0',
      'ha:k7:p:1',
      'ha:k7:p:2',
      'ha:k7:p:3',
    ]);
  });

  it('the end of a case: a text reply quoting the card; a template fills one-line variables', () => {
    const end = renderOutcome(
      card([], { final: true, status: 'Approved by Ann at 10:15 UTC' }),
      'wamid.X',
    ) as any;
    expect(end).toMatchObject({ type: 'text', context: { message_id: 'wamid.X' } });
    expect(end.text.body).toContain('Approved by Ann');
    const t = renderTemplate(card(['approve', 'reject'], { prompt: 'line one\nline two' }), {
      name: 'hitl_approval',
      language: 'en',
      body: ['title', 'prompt', 'link'],
      buttons: ['approve', 'reject'],
    }) as any;
    const ok = checkMessage({ messaging_product: 'whatsapp', to: '4915112345678', ...t }, [
      { name: 'hitl_approval', language: 'en', bodyParams: 3, quickReplies: 2 },
    ]);
    expect(ok).toBeNull();
    expect(t.template.components[0].parameters[1].text).toBe('line one line two');
    expect(t.template.components[2].parameters[0].payload).toBe('hitl:k7:reject');
  });
});
