/**
 * platforms/teams/ask.ts (pure): the ask inputs on the card, the values Teams sends turned back
 * into typed answer data, service text escaped in the ask's TextBlocks, and the fallback to the
 * review page when the inputs alone do not fit a Teams message.
 */
import { describe, expect, it } from 'vitest';
import { askTapData, TEAMS_ASK_PREFIX } from '../../../platforms/teams/ask.ts';
import {
  cardBytes,
  renderTeamsCard,
  TEAMS_MESSAGE_MAX_BYTES,
} from '../../../platforms/teams/render.ts';
import { kindOf, parseAskContent } from '../../../src/asks/content.ts';
import type { Card } from '../../../src/render/card.ts';
import { KINDS } from '../../asks/fixtures.ts';
import { makeCard } from './helpers.ts';

type Node = Record<string, any>;

function askCard(content: unknown, overrides: Partial<Card> = {}): Card {
  const parsed = parseAskContent(content);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return makeCard({
    actions: [],
    hint: null,
    ask: { kind: kindOf(parsed.content), content: parsed.content },
    ...overrides,
  });
}

const inputsOf = (json: { body: Node[] }) =>
  json.body.filter((b) => String(b.type).startsWith('Input.'));
const P = TEAMS_ASK_PREFIX;

describe('askTapData', () => {
  it('turns the string values Teams sends into the ask shapes', () => {
    expect(
      askTapData({
        hitl: 'hitl:k:submit',
        [`${P}f.S.name`]: 'Ann',
        [`${P}f.N.count`]: '2.5',
        [`${P}f.N.empty`]: '',
        [`${P}f.B.urgent`]: 'true',
        [`${P}f.D.due`]: '',
        [`${P}f.O.team`]: 'infra',
      }),
    ).toEqual({ values: { name: 'Ann', count: 2.5, urgent: true, team: 'infra' } });
    expect(askTapData({ [`${P}many`]: 'a,b' })).toEqual({ selected: ['a', 'b'] });
    expect(askTapData({ [`${P}many`]: '' })).toEqual({ selected: [] });
    expect(askTapData({ [`${P}one`]: '' })).toEqual({});
    expect(askTapData({ [`${P}rank.1`]: 'b', [`${P}rank.0`]: 'a', [`${P}rank.2`]: '' })).toEqual({
      ranking: ['a', 'b'],
    });
    expect(askTapData({ [`${P}m.N.amount`]: '45', [`${P}decision`]: 'ship' })).toEqual({
      decision: 'ship',
      values: { amount: 45 },
    });
    // A value of the wrong type stays as sent, so the answer check names the field.
    expect(askTapData({ [`${P}a.N.limit`]: 'many', [`${P}a.B.dry`]: 'maybe' })).toEqual({
      args: { limit: 'many', dry: 'maybe' },
    });
  });

  it('is undefined for a plain button (no ask inputs)', () => {
    expect(askTapData({ hitl: 'hitl:k:approve' })).toBeUndefined();
    expect(askTapData(undefined)).toBeUndefined();
    expect(askTapData(['x'])).toBeUndefined();
  });
});

describe('ask inputs on the card', () => {
  it('draws each kind and keeps the values after a refused answer, the problem under its field', () => {
    const card = askCard(KINDS['context.form'].content);
    const json = renderTeamsCard(card, {
      askRetry: {
        values: {
          [`${P}f.S.ticket_id`]: 'T-1',
          [`${P}f.N.priority`]: 'high',
          [`${P}f.D.due`]: '2026-12-01',
        },
        issues: [{ path: 'data.values.priority', message: 'must be a number' }],
      },
    });
    const at = json.body.findIndex((b) => b.id === `${P}f.N.priority`);
    // Input.Number holds numbers only: the refused text is not put back, the problem is shown.
    expect(json.body[at]).toMatchObject({ type: 'Input.Number' });
    expect(json.body[at]!.value).toBeUndefined();
    expect(json.body[at + 1]).toMatchObject({ color: 'Attention', text: 'must be a number' });
    expect(json.body.find((b) => b.id === `${P}f.S.ticket_id`)).toMatchObject({ value: 'T-1' });
    expect(json.body.find((b) => b.id === `${P}f.D.due`)).toMatchObject({ value: '2026-12-01' });
    const tools = renderTeamsCard(askCard(KINDS['edit.tool_args'].content));
    expect(tools.body.find((b) => b.id === `${P}a.N.limit`)).toMatchObject({ value: 1000 });
    const submit = json.actions.find((a) => a.type === 'Action.Execute')!;
    expect(submit.data).toEqual({ hitl: `hitl:${card.key}:submit` });
    expect(submit.fallback).toMatchObject({ type: 'Action.Submit', data: submit.data });
  });

  it('escapes service text in the ask (no Markdown, no {{DATE()}} evaluated)', () => {
    const content = structuredClone(KINDS['context.confirm'].content) as Node;
    content.statement = '**all** {{DATE(2026-01-01T00:00:00Z)}}';
    const json = renderTeamsCard(askCard(content));
    const text = JSON.stringify(json.body);
    expect(text).toContain('\\\\*\\\\*all\\\\*\\\\*');
    expect(text).not.toContain('{{DATE');
  });

  it('a final card has no inputs and no buttons', () => {
    const json = renderTeamsCard(askCard(KINDS['edit.content'].content, { final: true }));
    expect(inputsOf(json)).toHaveLength(0);
    expect(json.actions.every((a) => a.type === 'Action.OpenUrl')).toBe(true);
  });

  it('inputs that alone exceed a Teams message: the review page, and only input-free buttons', () => {
    const values = Array.from({ length: 100 }, (_, i) => `${i}-${'v'.repeat(190)}`);
    const fields = Array.from({ length: 50 }, (_, i) => ({
      key: `f${i}`,
      label: `Field ${i}`,
      type: 'DROPDOWN',
      required: false,
      options: values,
    }));
    const card = askCard({ type: 'context', sub_type: 'form', prompt: 'Big', fields });
    const json = renderTeamsCard(card);
    expect(cardBytes(json)).toBeLessThanOrEqual(TEAMS_MESSAGE_MAX_BYTES);
    expect(inputsOf(json)).toHaveLength(0);
    expect(json.actions.map((a) => a.type)).toEqual(['Action.OpenUrl']);

    const approval = askCard(
      {
        type: 'approval',
        sub_type: 'modify',
        prompt: 'Big',
        choices: [
          { key: 'approve', label: 'Approve' },
          { key: 'reject', label: 'Reject' },
        ],
        modifiable: fields
          .slice(0, 10)
          .map((f) => ({ key: f.key, label: f.label, type: 'DROPDOWN', value: values })),
      },
      {
        actions: [
          { action: 'approve', label: 'Approve', style: 'primary', payload: 'hitl:k7Qa9:approve' },
          { action: 'reject', label: 'Reject', style: 'danger', payload: 'hitl:k7Qa9:reject' },
        ],
      },
    );
    const small = renderTeamsCard(approval, {}, 20_000);
    expect(inputsOf(small)).toHaveLength(0);
    expect(small.actions.map((a) => a.id ?? a.type)).toEqual([
      'hitl-approve',
      'hitl-reject',
      'Action.OpenUrl',
    ]);
  });
});
