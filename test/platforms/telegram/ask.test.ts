/** The pure part of Telegram asks: button payloads within 64 bytes, parsing, typed replies. */
import { expect, it } from 'vitest';
import {
  askRows,
  parseAskData,
  pickSummary,
  TELEGRAM_ASK_MAX_OPTIONS,
  telegramDrawsAsk,
} from '../../../platforms/telegram/ask.ts';
import { flowSteps, readReply } from '../../../platforms/telegram/ask-steps.ts';
import { ALL_KINDS, parseAskContent } from '../../../src/asks/content.ts';
import { KINDS } from '../../asks/fixtures.ts';

const LONGEST_KEY = 'k'.repeat(32);
const parse = (raw: Record<string, unknown>) => {
  const r = parseAskContent(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.content;
};

it('every ask button of every kind fits 64 bytes and parses back, even with the most options', () => {
  const many = Array.from({ length: TELEGRAM_ASK_MAX_OPTIONS }, (_, i) => ({
    key: `option_${i}`,
    label: `Option ${i} with a rather long label that the client will cut anyway`,
  }));
  const contents = [
    ...ALL_KINDS.map((k) => parse(KINDS[k].content)),
    parse({ type: 'decision', sub_type: 'multi', prompt: 'p', options: many }),
    parse({ type: 'decision', sub_type: 'rank', prompt: 'p', options: many }),
  ];
  for (const c of contents) {
    const state = { picked: c.type === 'decision' ? c.options.map((_, i) => i) : [] };
    for (const b of askRows(LONGEST_KEY, c, state).flat()) {
      // The draft's copy button carries the draft, no callback data.
      if ('copy_text' in b) continue;
      const data = (b as { callback_data: string }).callback_data;
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
      expect(parseAskData(data)?.key).toBe(LONGEST_KEY);
    }
  }
});

it('more options than fit as buttons: no rows (the card keeps Details)', () => {
  const options = Array.from({ length: TELEGRAM_ASK_MAX_OPTIONS + 1 }, (_, i) => ({
    key: `o${i}`,
    label: `O${i}`,
  }));
  const c = parse({ type: 'decision', sub_type: 'single', prompt: 'p', options });
  expect(telegramDrawsAsk(c)).toBe(false);
  expect(askRows('abc', c)).toEqual([]);
});

it('foreign or malformed payloads are not ask buttons', () => {
  for (const data of ['hitl:abc:approve', 'ha:abc:z', 'ha:abc:t:1234', 'ha::t:1', 'ha:a b:t:1', ''])
    expect(parseAskData(data)).toBeNull();
  expect(parseAskData('ha:abc:t:12')).toEqual({ key: 'abc', op: 't', n: 12 });
});

it('replies become typed values or a named problem', () => {
  const steps = flowSteps(parse(KINDS['context.form'].content));
  const by = (key: string) => steps.find((s) => s.key === key)!;
  expect(readReply(by('priority'), ' 2.5 ')).toEqual({ value: 2.5 });
  expect(readReply(by('priority'), 'high')).toEqual({ problem: 'must be a number' });
  expect(readReply(by('due'), '2026-02-30')).toEqual({ problem: 'must be a date (YYYY-MM-DD)' });
  expect(readReply(by('ticket_id'), '  ')).toEqual({ problem: 'must not be empty' });
  expect(readReply(by('team'), 'infra')).toEqual({ problem: 'please use the buttons' });
  // Read-only tool args are never asked.
  const args = flowSteps(parse(KINDS['edit.tool_args'].content)).map((s) => s.key);
  expect(args).toEqual(['limit', 'dry_run']);
});

it("a person's picks fit the 200-character toast, however many and long the options", () => {
  const options = Array.from({ length: TELEGRAM_ASK_MAX_OPTIONS }, (_, i) => ({
    key: `o${i}`,
    label: `Option ${i} ${'with a long label '.repeat(10)}`.slice(0, 200),
  }));
  for (const sub_type of ['multi', 'rank'] as const) {
    const c = parse({ type: 'decision', sub_type, prompt: 'p', options });
    const text = pickSummary(c, { picked: options.map((_, i) => i) });
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text).toMatch(
      sub_type === 'multi' ? /^Your choice \(40; at least 1\)/ : /^Your order \(40\/40\)/,
    );
  }
  const none = parse({ type: 'decision', sub_type: 'rank', prompt: 'p', options });
  expect(pickSummary(none, { picked: [] })).toBe('Your order (0/40): none yet');
});

it('a short draft gets a copy button (Telegram cannot prefill a reply); a long one does not', () => {
  const short = parse(KINDS['edit.content'].content);
  const copy = askRows('k1', short, { picked: [] })
    .flat()
    .find((b) => 'copy_text' in b) as { copy_text: { text: string } } | undefined;
  expect(copy?.copy_text.text).toBe((KINDS['edit.content'].content as { draft: string }).draft);
  const long = parse({ ...KINDS['edit.content'].content, draft: 'x'.repeat(257) });
  expect(
    askRows('k1', long, { picked: [] })
      .flat()
      .some((b) => 'copy_text' in b),
  ).toBe(false);
});
