/** The content model and answer validation of the ten kinds: valid and invalid, per kind. */
import { describe, expect, it } from 'vitest';
import {
  actionFor,
  buttonIrreversible,
  checkAnswer,
  irreversiblePicks,
} from '../../src/asks/answer.ts';
import { approvalDecisionOf } from '../../src/asks/approval.ts';
import { ALL_KINDS, type AskContent, kindOf, parseAskContent } from '../../src/asks/content.ts';
import { protocolOf } from '../../src/asks/protocol.ts';
import { KINDS } from './fixtures.ts';

function parsed(raw: unknown): AskContent {
  const r = parseAskContent(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.content;
}

describe.each(ALL_KINDS)('%s', (kind) => {
  const fx = KINDS[kind];
  const content = parsed(fx.content);

  it('parses the SDK serialisation and keeps its kind', () => {
    expect(kindOf(content)).toBe(kind);
  });

  it('accepts a valid answer and returns result.data in the kind shape', () => {
    const r = checkAnswer(content, fx.answer.action, fx.answer.data);
    expect(r).toEqual({ ok: true, action: fx.answer.action, data: fx.result });
    if (r.ok) expect(actionFor(content, r.data)).toBe(fx.answer.action);
  });

  it.each(fx.invalid)('refuses: $why', ({ action, data, path }) => {
    const r = checkAnswer(content, action, data);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(path);
  });

  it('maps to a protocol type whose actions include the answer action', () => {
    const p = protocolOf(content);
    expect(p.type).toMatch(/^(approval|selection|input|confirmation|x-[a-z-]+)$/);
    expect(p.actions).toContain(fx.answer.action);
    expect(p.defaults).toContain(p.default_action);
  });
});

describe('content validation', () => {
  it('fills the seed defaults', () => {
    const binary = parsed({ type: 'approval', sub_type: 'binary', prompt: 'Go?' });
    expect(binary.type === 'approval' && binary.choices.map((c) => c.key)).toEqual([
      'approve',
      'reject',
    ]);
    const multi = parsed({
      type: 'decision',
      sub_type: 'multi',
      prompt: 'Pick',
      options: [{ key: 'a', label: 'A' }],
    });
    expect(multi).toMatchObject({ min_select: 1, max_select: null });
    expect(parsed({ type: 'context', sub_type: 'confirm', prompt: 'Ok?' })).toMatchObject({
      statement: '',
    });
    expect(parsed({ type: 'edit', sub_type: 'content', prompt: 'Edit' })).toMatchObject({
      draft: '',
    });
  });

  it.each([
    [{ type: 'poll', sub_type: 'x', prompt: 'p' }, 'content.type'],
    [{ type: 'decision', sub_type: 'multiple', prompt: 'p' }, 'content.sub_type'],
    [{ type: 'approval', sub_type: 'binary', prompt: '' }, 'content.prompt'],
    [
      { type: 'approval', sub_type: 'modify', prompt: 'p', choices: [], modifiable: [] },
      'content.choices',
    ],
    [
      {
        type: 'approval',
        sub_type: 'binary',
        prompt: 'p',
        choices: [{ key: 'a', label: 'A', colour: 'red' }],
      },
      // An unknown key is named itself (the error texts of issue 17).
      'content.choices[0].colour',
    ],
    [
      {
        type: 'approval',
        sub_type: 'binary',
        prompt: 'p',
        choices: [
          { key: 'a', label: 'A' },
          { key: 'a', label: 'B' },
        ],
      },
      'content.choices[1].key',
    ],
    [
      { type: 'decision', sub_type: 'rank', prompt: 'p', options: [{ key: 'a', label: 'A' }] },
      'content.options',
    ],
    [
      {
        type: 'decision',
        sub_type: 'multi',
        prompt: 'p',
        options: [{ key: 'a', label: 'A' }],
        min_select: 2,
      },
      'content.min_select',
    ],
    [
      {
        type: 'decision',
        sub_type: 'multi',
        prompt: 'p',
        options: [
          { key: 'a', label: 'A' },
          { key: 'b', label: 'B' },
        ],
        min_select: 2,
        max_select: 1,
      },
      'content.max_select',
    ],
    [{ type: 'context', sub_type: 'freetext', prompt: 'p' }, 'content.input'],
    [
      {
        type: 'context',
        sub_type: 'form',
        prompt: 'p',
        fields: [{ key: 'k', label: 'K', type: 'COLOUR' }],
      },
      'content.fields[0].type',
    ],
    [
      {
        type: 'context',
        sub_type: 'form',
        prompt: 'p',
        fields: [{ key: 'k', label: 'K', type: 'DROPDOWN' }],
      },
      'content.fields[0].options',
    ],
    [
      {
        type: 'approval',
        sub_type: 'modify',
        prompt: 'p',
        choices: [{ key: 'approve', label: 'A' }],
        modifiable: [{ key: 'n', label: 'N', value: 'x', type: 'NUMBER' }],
      },
      'content.modifiable[0].value',
    ],
    [
      {
        type: 'approval',
        sub_type: 'modify',
        prompt: 'p',
        choices: [{ key: 'approve', label: 'A' }],
        modifiable: [{ key: 'd', label: 'D', value: [], type: 'DROPDOWN' }],
      },
      'content.modifiable[0].value',
    ],
    [
      {
        type: 'edit',
        sub_type: 'tool_args',
        prompt: 'p',
        args: [{ key: 'd', label: 'D', value: '2026-13-01', type: 'DATE' }],
      },
      'content.args[0].value',
    ],
    [
      {
        type: 'edit',
        sub_type: 'tool_args',
        prompt: 'p',
        args: [{ key: 'd', label: 'D', value: ['a'], type: 'DROPDOWN' }],
      },
      'content.args[0].type',
    ],
    [
      { type: 'edit', sub_type: 'content', prompt: 'p', draft: 'x'.repeat(20_001) },
      'content.draft',
    ],
  ])('refuses %j at %s', (raw, path) => {
    const r = parseAskContent(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(path);
  });

  it('bounds the number of options', () => {
    const options = Array.from({ length: 101 }, (_, i) => ({ key: `o${i}`, label: `O${i}` }));
    const r = parseAskContent({ type: 'decision', sub_type: 'single', prompt: 'p', options });
    expect(r.ok).toBe(false);
  });
});

describe('answers beyond the fixtures', () => {
  it('takes an approval decision from a plain button (no data)', () => {
    const c = parsed(KINDS['approval.binary'].content);
    expect(checkAnswer(c, 'reject', {})).toEqual({
      ok: true,
      action: 'reject',
      data: { decision: 'reject' },
    });
  });

  it('maps custom choice keys to x-approval with action submit', () => {
    const c = parsed({
      type: 'approval',
      sub_type: 'binary',
      prompt: 'Ship?',
      choices: [
        { key: 'ship', label: 'Ship', irreversible: true, impact_hint: 'Goes live' },
        { key: 'hold', label: 'Hold' },
      ],
    });
    expect(protocolOf(c).type).toBe('x-approval');
    const r = checkAnswer(c, 'submit', { decision: 'ship' });
    expect(r).toEqual({ ok: true, action: 'submit', data: { decision: 'ship' } });
    if (r.ok)
      expect(irreversiblePicks(c, r.data)).toEqual([
        expect.objectContaining({ label: 'Ship', impact_hint: 'Goes live' }),
      ]);
    expect(checkAnswer(c, 'submit', {}).ok).toBe(false);
    expect(buttonIrreversible(c, 'ship')).toBe(true);
    expect(buttonIrreversible(c, 'hold')).toBe(false);
  });

  it('leaves values out of a modify answer without edits; a picked dropdown value is an edit', () => {
    const c = parsed(KINDS['approval.modify'].content);
    expect(checkAnswer(c, 'reject', { decision: 'reject', values: { amount: 75 } })).toMatchObject({
      data: { decision: 'reject' },
    });
    expect(checkAnswer(c, 'approve', { values: { reason: 'fraud' } })).toMatchObject({
      data: { decision: 'approve', values: { reason: 'fraud' } },
    });
  });

  it('confirm cancel answers confirmed false; an unbounded multi takes every option', () => {
    const confirm = parsed(KINDS['context.confirm'].content);
    expect(checkAnswer(confirm, 'cancel', {})).toMatchObject({ data: { confirmed: false } });
    const multi = parsed({ ...KINDS['decision.multi'].content, max_select: null });
    expect(
      checkAnswer(multi, 'select', { selected: ['frontend', 'infra', 'backend'] }),
    ).toMatchObject({ data: { selected: ['infra', 'backend', 'frontend'] } });
  });

  it('keeps an unchanged read-only arg and refuses form fields that do not exist', () => {
    const t = parsed(KINDS['edit.tool_args'].content);
    expect(checkAnswer(t, 'submit', { args: { table: 'orders' } })).toMatchObject({ ok: true });
    const f = parsed(KINDS['context.form'].content);
    expect(checkAnswer(f, 'submit', { values: 'x' }).ok).toBe(false);
    expect(checkAnswer(f, 'submit', {}).ok).toBe(false);
  });
});

describe('approval view (agentos ApprovalDecision)', () => {
  const view = (kind: keyof typeof KINDS, action: string, data: Record<string, unknown>) => {
    const c = parsed(KINDS[kind].content);
    const r = checkAnswer(c, action, data);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    return approvalDecisionOf(c, r.data);
  };

  it('maps each kind and never carries toolArgs', () => {
    expect(view('approval.binary', 'reject', {})).toEqual({ approved: false });
    expect(view('approval.modify', 'approve', { values: { amount: 45 } })).toEqual({
      approved: true,
      values: { amount: 45 },
    });
    expect(view('context.confirm', 'confirm', {})).toEqual({ approved: true });
    expect(view('context.freetext', 'submit', { value: 'Be brief' })).toEqual({
      approved: true,
      modifications: { instructions: 'Be brief' },
    });
    expect(view('edit.content', 'submit', { content: 'New text' })).toEqual({
      approved: true,
      modifications: { output: 'New text' },
    });
    const draft = KINDS['edit.content'].content.draft as string;
    expect(view('edit.content', 'submit', { content: draft })).toEqual({ approved: true });
    const tool = view('edit.tool_args', 'submit', { args: { limit: 5 } });
    expect(tool).toEqual({ approved: true, args: { table: 'orders', limit: 5, dry_run: false } });
    expect(tool).not.toHaveProperty('toolArgs');
    expect(tool).not.toHaveProperty('modifications.toolArgs');
    expect(view('decision.single', 'select', { selected: 'prod' })).toBeNull();
    expect(view('context.form', 'submit', KINDS['context.form'].answer.data)).toBeNull();
  });
});
