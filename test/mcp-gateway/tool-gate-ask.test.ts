/**
 * The ask of a held tool call (tool-gate-ask.ts) and the checks of its answer (asks/tool-call.ts,
 * through the asks service's profile as a real answer passes it): every argument is shown, a call
 * that cannot be shown in full is not asked, read-only arguments cannot change, edits must fit the
 * tool's inputSchema, and what is sent is the client's arguments with the person's edits.
 */
import { describe, expect, it } from 'vitest';
import { parseAskContent } from '../../src/asks/content.ts';
import { argumentsSent, toolCallAnswerIssues } from '../../src/asks/tool-call.ts';
import { askProfile } from '../../src/asks-service/service.ts';
import type { ReviewCase } from '../../src/hitl-service/types.ts';
import { type HeldCall, heldAsk } from '../../src/mcp-gateway/tool-gate-ask.ts';

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    path: { type: 'string', pattern: '^/srv/' },
    count: { type: 'integer', minimum: 1 },
    force: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['path'],
  additionalProperties: false,
};

const call = (over: Partial<HeldCall> = {}): HeldCall => ({
  upstream: 'files',
  tool: 'delete_file',
  client: 'ci-bot',
  args: { path: '/srv/a.txt', count: 2, force: false, tags: ['x', 'y'] },
  inputSchema: schema,
  edit: false,
  ...over,
});

/** The asks service's check of an answer to the held call's ask, as a review would pass it. */
function answer(c: HeldCall, action: string, data: Record<string, unknown>) {
  const made = heldAsk(c);
  if (!made.ok) throw new Error(made.problem);
  const parsed = parseAskContent(made.content);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const kase = {
    context: { ask: parsed.content, tool_call: made.toolCall },
  } as unknown as ReviewCase;
  return {
    check: askProfile.checkAnswer(kase, action, data, 'inline_submit'),
    toolCall: made.toolCall,
  };
}

describe('without edits: a confirm that shows everything', () => {
  it('lists the tool, the upstream, the client and every argument in full', () => {
    const made = heldAsk(call());
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(parseAskContent(made.content).ok).toBe(true);
    expect(made.content).toMatchObject({ type: 'context', sub_type: 'confirm' });
    const statement = (made.content as { statement: string }).statement;
    for (const line of [
      'Tool: delete_file',
      'Upstream: files',
      'Called by: client "ci-bot"',
      '• path: "/srv/a.txt"',
      '• count: 2',
      '• force: false',
      '• tags: ["x","y"]',
    ])
      expect(statement).toContain(line);
    expect(heldAsk(call({ client: null, args: {} })).ok).toBe(true);
  });

  it('confirm sends the arguments as given; cancel sends nothing', () => {
    const { check, toolCall } = answer(call(), 'confirm', { confirmed: true });
    expect(check.ok).toBe(true);
    expect(argumentsSent(toolCall, check.ok ? check.data : {})).toEqual(call().args);
    const no = answer(call(), 'cancel', { confirmed: false });
    expect(argumentsSent(no.toolCall, no.check.ok ? no.check.data : {})).toBeNull();
  });

  it('does not ask about a call whose arguments a card cannot show in full', () => {
    const made = heldAsk(call({ args: { blob: 'x'.repeat(5000) } }));
    expect(made).toEqual({
      ok: false,
      problem: expect.stringContaining('more than a chat card shows'),
    });
  });
});

describe('with edits: approve or reject, editable arguments typed', () => {
  const editing = call({ edit: ['path', 'count', 'tags'] });

  it('shows every argument as a field, the ones not editable marked read-only', () => {
    const made = heldAsk(editing);
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(parseAskContent(made.content).ok).toBe(true);
    expect((made.content as any).modifiable).toEqual([
      { key: 'path', label: 'path', type: 'STRING', value: '/srv/a.txt' },
      { key: 'count', label: 'count', type: 'NUMBER', value: 2 },
      { key: 'force', label: 'force (read-only)', type: 'BOOLEAN', value: false },
      // A list is never editable in a chat field: shown as its JSON, read-only.
      { key: 'tags', label: 'tags (read-only)', type: 'STRING', value: '["x","y"]' },
    ]);
    expect((made.content as any).prompt).toContain('Tool: delete_file · Upstream: files');
  });

  it('sends the edited arguments when they fit the tool', () => {
    const { check, toolCall } = answer(editing, 'approve', {
      decision: 'approve',
      values: { path: '/srv/b.txt', count: 3 },
    });
    expect(check).toMatchObject({ ok: true });
    expect(argumentsSent(toolCall, check.ok ? check.data : {})).toEqual({
      path: '/srv/b.txt',
      count: 3,
      force: false,
      tags: ['x', 'y'],
    });
  });

  it("refuses an edit the tool's inputSchema refuses, at the field", () => {
    const { check } = answer(editing, 'approve', {
      decision: 'approve',
      values: { path: '/etc/passwd', count: 2.5 },
    });
    expect(check.ok).toBe(false);
    const details = check.ok ? [] : check.details;
    expect(details).toContainEqual({
      path: 'data.values.path',
      message: 'must match pattern "^/srv/" (the tool\'s inputSchema)',
    });
    expect(details).toContainEqual({
      path: 'data.values.count',
      message: "must be integer (the tool's inputSchema)",
    });
  });

  it('refuses a change to a read-only argument', () => {
    const { check } = answer(editing, 'approve', { decision: 'approve', values: { force: true } });
    expect(check).toEqual({
      ok: false,
      details: [
        { path: 'data.values.force', message: 'read-only: force is sent as the client gave it' },
      ],
    });
  });

  it('a rejection sends nothing and is not checked against the schema', () => {
    const { check, toolCall } = answer(editing, 'reject', { decision: 'reject' });
    expect(check.ok).toBe(true);
    expect(argumentsSent(toolCall, check.ok ? check.data : {})).toBeNull();
    expect(toolCallAnswerIssues(toolCall, { decision: 'reject', values: { force: true } })).toEqual(
      [],
    );
  });

  it('names arguments whose names are no field key by position, and keeps the name as label', () => {
    const made = heldAsk(call({ args: { 'file name': 'a' }, edit: true, inputSchema: undefined }));
    if (!made.ok) throw new Error(made.problem);
    expect((made.content as any).modifiable[0]).toMatchObject({ key: 'arg_1', label: 'file name' });
    expect(argumentsSent(made.toolCall, { decision: 'approve', values: { arg_1: 'b' } })).toEqual({
      'file name': 'b',
    });
  });

  it('refuses edits when the schema cannot be compiled, naming why', () => {
    const c = call({
      edit: true,
      inputSchema: { type: 'object', properties: { path: { type: 7 } } },
    });
    const made = heldAsk(c);
    if (!made.ok) throw new Error(made.problem);
    expect(
      toolCallAnswerIssues(made.toolCall, { decision: 'approve', values: { path: '/srv/x' } })[0]
        ?.message,
    ).toContain("the tool's inputSchema does not compile");
  });
});
