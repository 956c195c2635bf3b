/**
 * A card's typed fields (an answer's form fields, a tool's arguments, values being modified) as
 * Slack's `table` block, so a person reads them as rows rather than a run of "Label: value" text.
 * Over the table's limits the same rows go out as two-column section fields, which every Slack
 * client draws. Pure.
 *
 * Limits from the Block Kit table block reference (docs.slack.dev/reference/block-kit/blocks/table-block):
 * at most 100 rows of at most 20 cells, cells `raw_text` (text at least 1 character) or `rich_text`,
 * at most 10,000 characters over all cells, and one table per message.
 */
import type { types } from '@slack/bolt';
import type { CardField, CardTable } from '../../src/render/card.ts';

/** Rows in one table block (the header row counts). */
export const SLACK_TABLE_MAX_ROWS = 100;
/** Cells in one row. */
export const SLACK_TABLE_MAX_COLUMNS = 20;
/** Characters over all cells of one table. */
export const SLACK_TABLE_MAX_CHARS = 10_000;
/** A section's `fields`: at most 10 text objects of at most 2,000 characters each. */
export const SLACK_SECTION_MAX_FIELDS = 10;
export const SLACK_SECTION_FIELD_MAX_CHARS = 2000;
/** Sections of fields the fallback draws at most; Details has every field. */
const FALLBACK_SECTIONS_MAX = 5;

/** What an empty value shows: a raw_text cell needs at least one character. */
const EMPTY = '—';

/** The 'table' block as @slack/types 3.2 describes it (a KnownBlock). */
export type SlackTableBlock = types.TableBlock;

const rawCell = (text: string): types.RawTextElement => ({
  type: 'raw_text',
  // raw_text is shown as written (no mrkdwn, no mentions), so nothing is escaped here.
  text: text.trim() === '' ? EMPTY : text,
});

/** Characters the table's cells hold, as Slack counts them against SLACK_TABLE_MAX_CHARS. */
function cellChars(rows: string[][]): number {
  return rows.reduce((n, r) => n + r.reduce((m, c) => m + (c.trim() === '' ? 1 : c.length), 0), 0);
}

/** The rows as one table block, or null when they overstep a limit of Slack's table. */
export function tableBlock(table: CardTable): SlackTableBlock | null {
  const rows = [table.header, ...table.rows.map((r) => [r.label, r.value])];
  if (rows.length > SLACK_TABLE_MAX_ROWS) return null;
  if (rows.some((r) => r.length > SLACK_TABLE_MAX_COLUMNS)) return null;
  if (cellChars(rows) > SLACK_TABLE_MAX_CHARS) return null;
  return {
    type: 'table',
    rows: rows.map((r) => r.map(rawCell)),
    column_settings: [{ is_wrapped: true }, { is_wrapped: true }],
  };
}

/** A field's text fitted to a section field (cut by code point, with an ellipsis). */
function fieldText(
  text: string,
  fitText: (raw: string, max: number) => string,
): types.PlainTextElement {
  return {
    type: 'plain_text',
    text: fitText(text.trim() === '' ? EMPTY : text, SLACK_SECTION_FIELD_MAX_CHARS),
  };
}

/**
 * The fallback: each row as a label field and a value field side by side (Slack draws `fields` in
 * two columns), five rows per section, at most FALLBACK_SECTIONS_MAX sections.
 */
export function fieldSections(
  rows: CardField[],
  fitText: (raw: string, max: number) => string,
): types.SectionBlock[] {
  const perSection = SLACK_SECTION_MAX_FIELDS / 2;
  const out: types.SectionBlock[] = [];
  for (let i = 0; i < rows.length && out.length < FALLBACK_SECTIONS_MAX; i += perSection) {
    const fields = rows
      .slice(i, i + perSection)
      .flatMap((r) => [fieldText(r.label, fitText), fieldText(r.value, fitText)]);
    out.push({ type: 'section', fields });
  }
  return out;
}

/** The card's table as Slack blocks: one table block, else section fields; none without a table. */
export function tableBlocks(
  table: CardTable | undefined,
  fitText: (raw: string, max: number) => string,
): types.KnownBlock[] {
  if (!table || table.rows.length === 0) return [];
  const block = tableBlock(table);
  return block ? [block] : fieldSections(table.rows, fitText);
}

/** The text lines a table already shows, to be left out of the card's text. */
export function shownInTable(table: CardTable | undefined): Set<string> {
  return new Set((table?.rows ?? []).map((r) => r.line));
}
