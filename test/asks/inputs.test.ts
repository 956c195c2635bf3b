/**
 * The one content -> inputs mapping the chat flows share (src/asks/inputs.ts): which inputs each kind
 * has, what is prefilled and required, and that the answer made from the inputs (kept as they are,
 * or the fixture's values) is the typed answer the relay accepts.
 */
import { expect, it } from 'vitest';
import { checkAnswer } from '../../src/asks/answer.ts';
import { ALL_KINDS, type AskContent, parseAskContent } from '../../src/asks/content.ts';
import { askInputs, inputsAnswer, probeAction } from '../../src/asks/inputs.ts';
import { protocolOf } from '../../src/asks/protocol.ts';
import { KINDS } from './fixtures.ts';

const parse = (raw: Record<string, unknown>): AskContent => {
  const r = parseAskContent(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.content;
};

it('each kind that takes typing has its inputs; the others none', () => {
  const shape = (kind: (typeof ALL_KINDS)[number]) =>
    askInputs(parse(KINDS[kind].content)).map((i) => [i.key, i.type, i.required, i.current]);
  expect(shape('context.freetext')).toEqual([['value', 'STRING', true, undefined]]);
  expect(shape('edit.content')[0]?.slice(0, 3)).toEqual(['content', 'STRING', true]);
  expect(shape('edit.tool_args')).toEqual([
    ['limit', 'NUMBER', false, 1000],
    ['dry_run', 'BOOLEAN', false, false],
  ]);
  expect(shape('approval.modify')).toEqual([
    ['amount', 'NUMBER', false, 75],
    ['note', 'STRING', false, ''],
    ['reason', 'DROPDOWN', false, undefined],
  ]);
  const reason = askInputs(parse(KINDS['approval.modify'].content)).at(-1);
  expect(reason?.options).toEqual(['duplicate', 'fraud', 'other']);
  const form = askInputs(parse(KINDS['context.form'].content));
  expect(form.map((i) => i.key)).toEqual(['ticket_id', 'priority', 'is_urgent', 'due', 'team']);
  expect(form.find((i) => i.key === 'team')?.options).toEqual(['infra', 'backend']);
  for (const kind of [
    'approval.binary',
    'decision.single',
    'decision.multi',
    'decision.rank',
    'context.confirm',
  ] as const)
    expect(askInputs(parse(KINDS[kind].content)), kind).toEqual([]);
});

it('the answer of the inputs is the typed answer the relay accepts, with its action', () => {
  for (const kind of ALL_KINDS) {
    const c = parse(KINDS[kind].content);
    const inputs = askInputs(c);
    if (!inputs.length) {
      expect(inputsAnswer(c, {}), kind).toBeNull();
      continue;
    }
    const fixture = KINDS[kind].answer.data as Record<string, unknown>;
    const values = (fixture.values ?? fixture.args ?? fixture) as Record<string, unknown>;
    const decision = typeof fixture.decision === 'string' ? fixture.decision : undefined;
    const made = inputsAnswer(c, values, decision)!;
    const checked = checkAnswer(c, made.action, made.data);
    expect(checked, kind).toMatchObject({ ok: true, data: KINDS[kind].result });
  }
});

it('a first step is checked with an action the kind is answered with', () => {
  for (const kind of ALL_KINDS) {
    const c = parse(KINDS[kind].content);
    expect(protocolOf(c).actions, kind).toContain(probeAction(c));
  }
});
