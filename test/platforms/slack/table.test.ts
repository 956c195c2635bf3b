/**
 * Slack's table block for a card's typed fields (issue 34, "Slack: the newer blocks"): a final
 * card's form answer, tool arguments and modified values, and an open card's values being decided,
 * drawn as one table (header row, one row per field) and left out of the card's text; over the
 * table's limits the same rows as two-column section fields. The fake Slack refuses a table the way
 * Slack does (invalid_blocks), and the real WebClient sees that refusal.
 */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCard } from '../../../platforms/slack/render.ts';
import {
  SLACK_TABLE_MAX_CHARS,
  SLACK_TABLE_MAX_ROWS,
  tableBlock,
} from '../../../platforms/slack/table.ts';
import { type AskKind, parseAskContent } from '../../../src/asks/content.ts';
import { protocolOf } from '../../../src/asks/protocol.ts';
import { renderCase } from '../../../src/cases/render-case.ts';
import type { Card, CardTable } from '../../../src/render/card.ts';
import { loadStrings } from '../../../src/render/templates.ts';
import type { StoredCase } from '../../../src/store/types.ts';
import { KINDS } from '../../asks/fixtures.ts';
import { sampleCase } from '../../contract/store-contract.ts';
import { FakeSlack } from '../../fakes/slack-api.ts';
import { blocksProblem, messageProblem } from '../../fakes/slack-blocks.ts';

type Json = Record<string, any>;
const s = loadStrings('en');

/** The card of an ask of `kind`: open, or answered with the fixture's answer. */
function askCard(kind: AskKind, answered: boolean): Card {
  const parsed = parseAskContent(KINDS[kind].content);
  if (!parsed.ok) throw new Error(kind);
  const m = protocolOf(parsed.content);
  const c: StoredCase = sampleCase({ status: answered ? 'completed' : 'pending' });
  c.doc.hitl = {
    ...c.doc.hitl,
    type: m.type,
    prompt: parsed.content.prompt,
    context: { ask: parsed.content },
    inline_actions: m.inline_actions,
    submit_url: 'https://svc.example/submit',
  };
  if (answered) {
    c.doc.result = { action: KINDS[kind].answer.action, data: KINDS[kind].result } as never;
    c.doc.submitted_by = { platform: 'slack', platform_user_id: 'U1', display_name: 'Ann' };
  } else c.doc.inline_submit = true;
  return renderCase(c, { submit_token: answered ? null : 'tok', review_url: 'https://svc/r' }, s);
}

const tablesOf = (blocks: Json[]) => blocks.filter((b) => b.type === 'table');
const cells = (table: Json) => table.rows.map((r: Json[]) => r.map((c) => c.text));
const text = (blocks: Json[]) => JSON.stringify(blocks.filter((b) => b.type !== 'table'));

describe('Slack table block for typed fields', () => {
  it('TABLE-1 a final form answer is one table: header, one row per field, not repeated as text', () => {
    const { blocks } = renderCard(askCard('context.form', true));
    const [table, ...more] = tablesOf(blocks as Json[]);
    expect(more).toEqual([]);
    expect(cells(table!)).toEqual([
      ['Field', 'Value'],
      ['Ticket ID', 'TKT-123'],
      ['Priority (1-5)', '2'],
      ['Mark as urgent?', 'yes'],
      ['Due date', '2026-12-01'],
      ['Team', 'infra'],
    ]);
    expect(table!.rows[1][0]).toEqual({ type: 'raw_text', text: 'Ticket ID' });
    expect(text(blocks as Json[])).not.toContain('Ticket ID');
    expect(blocksProblem(blocks)).toBeNull();
  });

  it('TABLE-2 changed values say what they were; tool arguments keep the tool line as text', () => {
    const modify = renderCard(askCard('approval.modify', true)).blocks as Json[];
    expect(cells(tablesOf(modify)[0]!)).toContainEqual(['Refund Amount (USD)', '45 (was 75)']);
    const args = renderCard(askCard('edit.tool_args', true)).blocks as Json[];
    expect(cells(tablesOf(args)[0]!)).toEqual([
      ['Field', 'Value'],
      ['Target Table', 'orders'],
      ['Row Limit', '500 (was 1000)'],
      ['Dry Run?', 'no'],
    ]);
    expect(text(args)).toContain('Tool: run_sql');
    expect(text(args)).not.toContain('Row Limit');
  });

  it('TABLE-3 an open card shows the values being decided as a table, read-only ones marked', () => {
    const card = askCard('edit.tool_args', false);
    expect(card.ask).toBeDefined();
    const blocks = renderCard(card).blocks as Json[];
    expect(cells(tablesOf(blocks)[0]!)).toEqual([
      ['Field', 'Value'],
      ['Target Table', 'orders (read-only)'],
      ['Row Limit', '1000'],
      ['Dry Run?', 'no'],
    ]);
    expect(text(blocks)).not.toContain('Target Table: orders');
    expect(blocksProblem(blocks)).toBeNull();
    // A kind without typed fields keeps its text and has no table.
    expect(tablesOf(renderCard(askCard('decision.single', true)).blocks as Json[])).toEqual([]);
  });

  it('TABLE-4 over the table limits the rows go out as section fields Slack accepts', () => {
    const row = (i: number, value = `v${i}`) => ({
      label: `f${i}`,
      value,
      line: `f${i}: ${value}`,
    });
    const many: CardTable = {
      header: ['Field', 'Value'],
      rows: Array.from({ length: SLACK_TABLE_MAX_ROWS }, (_, i) => row(i)),
    };
    expect(tableBlock(many)).toBeNull();
    expect(
      tableBlock({ ...many, rows: many.rows.slice(0, SLACK_TABLE_MAX_ROWS - 1) }),
    ).not.toBeNull();
    const long: CardTable = {
      header: ['Field', 'Value'],
      rows: [row(1, 'x'.repeat(SLACK_TABLE_MAX_CHARS))],
    };
    expect(tableBlock(long)).toBeNull();
    const card: Card = { ...askCard('context.form', true), table: long };
    const blocks = renderCard(card).blocks as Json[];
    expect(tablesOf(blocks)).toEqual([]);
    const fields = blocks.find((b) => b.type === 'section' && b.fields);
    expect(fields!.fields[0]).toEqual({ type: 'plain_text', text: 'f1' });
    expect(fields!.fields[1].text.length).toBeLessThanOrEqual(2000);
    expect(blocksProblem(blocks)).toBeNull();
    // An empty value still fills its cell (raw_text needs a character).
    const empty = tableBlock({ header: ['Field', 'Value'], rows: [row(1, ' ')] }) as Json;
    expect(empty.rows[1][1]).toEqual({ type: 'raw_text', text: '—' });
  });
});

describe('the fake Slack checks table blocks as Slack does', () => {
  let fake: FakeSlack;
  let client: WebClient;
  beforeAll(async () => {
    fake = await FakeSlack.start({ botToken: 'xoxb-test' });
    client = new WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(() => fake.close());

  const raw = (t: string) => ({ type: 'raw_text', text: t });
  const table = (rows: unknown[][], extra: Json = {}) => ({ type: 'table', rows, ...extra });

  it('TABLE-5 refuses bad tables and a second table, each with invalid_blocks and its reason', () => {
    const bad: Array<[unknown, RegExp]> = [
      [table([]), /1-100 rows/],
      [table(Array.from({ length: 101 }, () => [raw('a')])), /1-100 rows/],
      [table([Array.from({ length: 21 }, () => raw('a'))]), /1-20 cells/],
      [table([[raw('')]]), /empty text/],
      [table([[{ type: 'plain_text', text: 'a' }]]), /cell type plain_text/],
      [table([[raw('x'.repeat(10_001))]]), /10000 characters/],
      [table([[raw('a')]], { column_settings: [{ align: 'middle' }] }), /bad align/],
    ];
    for (const [block, why] of bad) expect(blocksProblem([block])).toMatch(why);
    expect(blocksProblem([table([[raw('a'), { type: 'rich_text', elements: [{}] }]])])).toBeNull();
    const one = table([[raw('a')]]);
    expect(messageProblem([one], [])).toBeNull();
    expect(messageProblem([one, one], [])).toMatch(/only one table/);
    expect(messageProblem([one], [{ color: '#2EB67D', blocks: [one] }])).toMatch(/only one table/);
  });

  it('TABLE-6 the real WebClient gets Slack’s error form; a rendered card is accepted', async () => {
    const one = table([[raw('a')]]);
    const err = await client.chat
      .postMessage({ channel: 'C1', text: 't', blocks: [one, one] as never })
      .then(
        () => ({}) as Json,
        (e: Json) => e,
      );
    expect(err.data.error).toBe('invalid_blocks');
    expect(err.data.response_metadata.messages[0]).toMatch(/^\[ERROR\] only one table/);
    const m = renderCard(askCard('context.form', true));
    const ok = await client.chat.postMessage({ channel: 'C1', ...m });
    expect(ok.ok).toBe(true);
    expect(tablesOf(fake.messages('C1').at(-1)!.blocks as Json[])).toHaveLength(1);
  });
});
