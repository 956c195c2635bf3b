/**
 * platforms/googlechat (pure parts): the card within Chat's limits (the fake's rules), service text
 * escaped, the form inputs Chat sends turned back into typed answers, events parsed, and the
 * configuration refused with the variable named and no secret shown.
 */
import { describe, expect, it } from 'vitest';
import { askTapData } from '../../../platforms/googlechat/ask.ts';
import { readGooglechatConfig } from '../../../platforms/googlechat/config.ts';
import { parseEvent, parsePayload } from '../../../platforms/googlechat/parse.ts';
import {
  GOOGLECHAT_MESSAGE_MAX_BYTES,
  renderCard,
  textMessage,
} from '../../../platforms/googlechat/render.ts';
import { kindOf, parseAskContent } from '../../../src/asks/content.ts';
import type { Card } from '../../../src/render/card.ts';
import { KINDS } from '../../asks/fixtures.ts';
import { checkMessage } from '../../fakes/googlechat-rules.ts';

type Json = Record<string, any>;

function card(overrides: Partial<Card> = {}): Card {
  const key = overrides.key ?? 'k7Qa9';
  return {
    caseId: 'case-1',
    key,
    title: 'Approval needed',
    prompt: 'Deploy v2.3 to production?',
    lines: ['Service: deployer', 'Environment: prod'],
    hint: 'Approve cannot be undone.',
    actions: [
      { action: 'approve', label: 'Approve', style: 'primary', payload: `hitl:${key}:approve` },
      { action: 'reject', label: 'Reject', style: 'danger', payload: `hitl:${key}:reject` },
    ],
    link: { label: 'Details', url: 'https://service.example/review/1' },
    status: 'Waiting for a decision',
    final: false,
    ...overrides,
  };
}

function askCard(content: unknown, overrides: Partial<Card> = {}): Card {
  const parsed = parseAskContent(content);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return card({
    actions: [],
    hint: null,
    ask: { kind: kindOf(parsed.content), content: parsed.content },
    ...overrides,
  });
}

const widgets = (m: Json) =>
  m.cardsV2.flatMap((c: Json) => c.card.sections.flatMap((s: Json) => s.widgets));
const buttons = (m: Json) => widgets(m).flatMap((w: Json) => w.buttonList?.buttons ?? []);

describe('the card', () => {
  it('passes the Chat API rules, buttons carry only the payload, danger is red', () => {
    const m = renderCard(card()) as Json;
    expect(checkMessage(m)).toBeNull();
    const b = buttons(m);
    expect(b.map((x: Json) => x.text)).toEqual(['Approve', 'Reject', 'Details']);
    expect(b[0].onClick.action).toEqual({
      function: 'hitl',
      parameters: [{ key: 'p', value: 'hitl:k7Qa9:approve' }],
    });
    expect(b[1]).toMatchObject({ type: 'FILLED', color: { red: 0.78 } });
    expect(b[2].onClick).toEqual({ openLink: { url: 'https://service.example/review/1' } });
  });

  it('escapes service text (Chat reads a small HTML subset)', () => {
    const m = renderCard(card({ prompt: '<b>rm -rf</b> & <a href="x">go</a>' })) as Json;
    expect(widgets(m)[0].textParagraph.text).toBe(
      '&lt;b&gt;rm -rf&lt;/b&gt; &amp; &lt;a href="x"&gt;go&lt;/a&gt;',
    );
  });

  it('a final card has no action buttons; a huge card stays within 32,000 bytes and 100 widgets', () => {
    const done = renderCard(card({ final: true, status: 'Approved by Ann' })) as Json;
    expect(buttons(done).every((b: Json) => b.onClick.openLink)).toBe(true);
    const big = card({
      prompt: 'p'.repeat(10_000),
      lines: Array.from({ length: 200 }, (_, i) => `line ${i} ${'é'.repeat(900)}`),
    });
    const m = renderCard(big) as Json;
    expect(checkMessage(m)).toBeNull();
    expect(Buffer.byteLength(JSON.stringify(m))).toBeLessThanOrEqual(GOOGLECHAT_MESSAGE_MAX_BYTES);
  });

  it('an ask whose widgets would pass 32,000 bytes keeps Details and no Submit', () => {
    const draft = '✓'.repeat(15_000);
    const m = renderCard(askCard({ ...KINDS['edit.content'].content, draft })) as Json;
    expect(checkMessage(m)).toBeNull();
    expect(widgets(m).some((w: Json) => w.textInput)).toBe(false);
    expect(buttons(m).map((b: Json) => b.text)).toEqual(['Details']);
  });

  it('every native kind passes the rules', () => {
    for (const [kind, fx] of Object.entries(KINDS)) {
      const m = renderCard(askCard(fx.content)) as Json;
      expect(checkMessage(m), kind).toBeNull();
    }
  });

  it('a private notice names its viewer and is cut to 4,096 characters', () => {
    const m = textMessage('x'.repeat(5000), 'users/1');
    expect(m.privateMessageViewer).toEqual({ name: 'users/1' });
    expect([...(m.text ?? '')].length).toBeLessThanOrEqual(4096);
    expect(checkMessage(m)).toBeNull();
  });
});

describe('form inputs back to answers', () => {
  const s = (...value: string[]) => ({ stringInputs: { value } });
  it('types each value by its widget name; a date is the UTC day', () => {
    expect(
      askTapData(
        { k: 'context.form' },
        {
          'i.S.name': s('Ann'),
          'i.N.count': s('2.5'),
          'i.N.empty': s(''),
          'i.B.urgent': s('true'),
          'i.D.due': { dateInput: { msSinceEpoch: String(Date.parse('2026-12-01T00:00:00Z')) } },
          'i.O.team': s('infra'),
        },
      ),
    ).toEqual({
      values: { name: 'Ann', count: 2.5, urgent: true, due: '2026-12-01', team: 'infra' },
    });
    expect(askTapData({ k: 'decision.multi' }, { many: s('a', 'b') })).toEqual({
      selected: ['a', 'b'],
    });
    expect(askTapData({ k: 'approval.binary', d: 'ship' }, {})).toEqual({ decision: 'ship' });
    // A value of the wrong type stays as sent, so the answer check names the field.
    expect(askTapData({ k: 'edit.tool_args' }, { 'i.N.limit': s('many') })).toEqual({
      args: { limit: 'many' },
    });
    expect(askTapData({}, { 'i.S.x': s('y') })).toBeUndefined();
  });
});

describe('events', () => {
  const base = {
    eventTime: '2026-12-02T06:00:00.123456Z',
    user: { name: 'users/42', displayName: 'Ann', type: 'HUMAN' },
    space: { name: 'spaces/AAA', type: 'ROOM' },
  };
  it('a click: the payload from the parameters, the person from the event', () => {
    const e = parseEvent({
      ...base,
      type: 'CARD_CLICKED',
      message: { name: 'spaces/AAA/messages/m1' },
      common: { parameters: { p: 'hitl:k1:approve' } },
    });
    expect(e).toMatchObject({
      kind: 'click',
      tap: {
        platform: 'googlechat',
        key: 'k1',
        action: 'approve',
        user: { id: 'users/42', name: 'Ann' },
        ref: { address: 'spaces/AAA', id: 'spaces/AAA/messages/m1' },
      },
    });
    expect((e as { at: number }).at).toBe(Date.parse('2026-12-02T06:00:00.123Z'));
  });
  it('not Chat’s shape, or a space name that is not one: ignored', () => {
    expect(parseEvent({ ...base, type: 'CARD_CLICKED', space: { name: '../x' } }).kind).toBe(
      'other',
    );
    expect(parseEvent('x').kind).toBe('other');
    expect(parsePayload('hitl:k:')).toBeNull();
  });
});

describe('configuration', () => {
  it('names the variable that is wrong and never shows the key', () => {
    expect(readGooglechatConfig({})).toBeNull();
    const secret = '-----BEGIN PRIVATE KEY-----\nsecretsecretsecret\n-----END PRIVATE KEY-----\n';
    const key = JSON.stringify({
      type: 'service_account',
      client_email: 'x@y.iam.gserviceaccount.com',
      private_key: secret,
    });
    expect(() => readGooglechatConfig({ GOOGLE_CHAT_CREDENTIALS: key })).toThrow(
      /GOOGLE_CHAT_AUDIENCE/,
    );
    expect(() =>
      readGooglechatConfig({ GOOGLE_CHAT_CREDENTIALS: key, GOOGLE_CHAT_AUDIENCE: 'http://x' }),
    ).toThrow(/GOOGLE_CHAT_AUDIENCE/);
    const bad = JSON.stringify({ type: 'user', private_key: secret });
    let message = '';
    try {
      readGooglechatConfig({ GOOGLE_CHAT_CREDENTIALS: bad, GOOGLE_CHAT_AUDIENCE: '123456789012' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/GOOGLE_CHAT_CREDENTIALS/);
    expect(message).not.toContain('secretsecret');
    const ok = readGooglechatConfig({
      GOOGLE_CHAT_CREDENTIALS: key,
      GOOGLE_CHAT_AUDIENCE: '123456789012',
    });
    expect(ok).toMatchObject({
      apiUrl: 'https://chat.googleapis.com',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      certsUrl:
        'https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com',
    });
    const byUrl = readGooglechatConfig({
      GOOGLE_CHAT_CREDENTIALS: key,
      GOOGLE_CHAT_AUDIENCE: 'https://relay.example/googlechat/events',
    });
    expect(byUrl?.certsUrl).toBe('https://www.googleapis.com/oauth2/v3/certs');
  });
});
