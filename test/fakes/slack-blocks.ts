/**
 * The Block Kit checks the fake Slack applies before it accepts a message, with Slack's own limits,
 * so that a renderer that oversteps one gets `invalid_blocks` here as it would from Slack.
 */

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function textObject(v: unknown, max: number, where: string, plainOnly = false): string | null {
  if (!isObj(v)) return `${where}: text object missing`;
  if (v.type !== 'plain_text' && (plainOnly || v.type !== 'mrkdwn')) {
    return `${where}: text type ${String(v.type)} not allowed`;
  }
  if (typeof v.text !== 'string' || v.text.length === 0) return `${where}: empty text`;
  if (v.text.length > max) return `${where}: text longer than ${max}`;
  return null;
}

function button(el: Json, where: string, ids: Set<string>): string | null {
  const bad = textObject(el.text, 75, `${where}.text`, true);
  if (bad) return bad;
  if (el.action_id !== undefined) {
    if (typeof el.action_id !== 'string' || el.action_id.length > 255) {
      return `${where}: bad action_id`;
    }
    if (ids.has(el.action_id)) return `${where}: duplicate action_id`;
    ids.add(el.action_id);
  }
  if (el.value !== undefined && (typeof el.value !== 'string' || el.value.length > 2000)) {
    return `${where}: bad value`;
  }
  if (el.url !== undefined && (typeof el.url !== 'string' || el.url.length > 3000)) {
    return `${where}: bad url`;
  }
  if (el.style !== undefined && el.style !== 'primary' && el.style !== 'danger') {
    return `${where}: bad style`;
  }
  if (el.confirm !== undefined) {
    const c = el.confirm;
    if (!isObj(c)) return `${where}.confirm: not an object`;
    return (
      textObject(c.title, 100, `${where}.confirm.title`, true) ??
      textObject(c.text, 300, `${where}.confirm.text`) ??
      textObject(c.confirm, 30, `${where}.confirm.confirm`, true) ??
      textObject(c.deny, 30, `${where}.confirm.deny`, true)
    );
  }
  return null;
}

/** A static_select / multi_static_select with Slack's limits (100 options, 75 / 150 characters). */
function select(el: Json, where: string, ids: Set<string>): string | null {
  if (typeof el.action_id !== 'string' || el.action_id.length > 255)
    return `${where}: bad action_id`;
  if (ids.has(el.action_id)) return `${where}: duplicate action_id`;
  ids.add(el.action_id);
  if (el.placeholder !== undefined) {
    const bad = textObject(el.placeholder, 150, `${where}.placeholder`, true);
    if (bad) return bad;
  }
  const opts = el.options;
  if (!Array.isArray(opts) || opts.length === 0 || opts.length > 100)
    return `${where}: 1-100 options`;
  for (const [k, o] of opts.entries()) {
    if (!isObj(o)) return `${where}.options[${k}]: not an object`;
    const bad = textObject(o.text, 75, `${where}.options[${k}].text`, true);
    if (bad) return bad;
    if (typeof o.value !== 'string' || o.value.length === 0 || o.value.length > 150)
      return `${where}.options[${k}]: bad value`;
  }
  if (
    el.max_selected_items !== undefined &&
    (el.type !== 'multi_static_select' ||
      !Number.isInteger(el.max_selected_items) ||
      (el.max_selected_items as number) < 1)
  )
    return `${where}: bad max_selected_items`;
  return null;
}

/** A table cell: raw_text (text at least 1 character) or a rich_text block with elements. */
function tableCell(c: unknown, where: string): string | null {
  if (!isObj(c)) return `${where}: not an object`;
  if (c.type === 'raw_text')
    return typeof c.text === 'string' && c.text.length > 0 ? null : `${where}: empty text`;
  if (c.type === 'rich_text')
    return Array.isArray(c.elements) && c.elements.length > 0 ? null : `${where}: no elements`;
  return `${where}: cell type ${String(c.type)} not allowed`;
}

/**
 * Slack's table block: 1-100 rows of 1-20 cells, 10,000 characters over all cells, at most 20
 * column_settings of align left / center / right and a boolean is_wrapped.
 */
function tableProblem(block: Json, where: string): string | null {
  const rows = block.rows;
  if (!Array.isArray(rows) || rows.length === 0 || rows.length > 100) return `${where}: 1-100 rows`;
  let chars = 0;
  for (const [r, row] of rows.entries()) {
    if (!Array.isArray(row) || row.length === 0 || row.length > 20)
      return `${where}.rows[${r}]: 1-20 cells`;
    for (const [k, c] of row.entries()) {
      const bad = tableCell(c, `${where}.rows[${r}][${k}]`);
      if (bad) return bad;
      chars += JSON.stringify((c as Json).text ?? (c as Json).elements).length;
    }
  }
  if (chars > 10_000) return `${where}: more than 10000 characters in cells`;
  const settings = block.column_settings;
  if (settings === undefined) return null;
  if (!Array.isArray(settings) || settings.length > 20) return `${where}: 0-20 column_settings`;
  for (const [k, c] of settings.entries()) {
    if (c === null) continue;
    if (!isObj(c)) return `${where}.column_settings[${k}]: not an object`;
    if (c.align !== undefined && !['left', 'center', 'right'].includes(String(c.align)))
      return `${where}.column_settings[${k}]: bad align`;
    if (c.is_wrapped !== undefined && typeof c.is_wrapped !== 'boolean')
      return `${where}.column_settings[${k}]: bad is_wrapped`;
  }
  return null;
}

/** A section's text and/or fields (1-10 text objects of at most 2,000 characters each). */
function sectionProblem(block: Json, where: string): string | null {
  if (block.fields === undefined) return textObject(block.text, 3000, `${where}.text`);
  if (block.text !== undefined) {
    const bad = textObject(block.text, 3000, `${where}.text`);
    if (bad) return bad;
  }
  const fields = block.fields;
  if (!Array.isArray(fields) || fields.length === 0 || fields.length > 10)
    return `${where}: 1-10 fields`;
  for (const [k, f] of fields.entries()) {
    const bad = textObject(f, 2000, `${where}.fields[${k}]`);
    if (bad) return bad;
  }
  return null;
}

/** How many table blocks a message carries, its attachments' blocks included: Slack allows one. */
function tableCount(blocks: unknown, attachments: unknown): number {
  const count = (list: unknown) =>
    Array.isArray(list) ? list.filter((b) => isObj(b) && b.type === 'table').length : 0;
  const inAttachments = Array.isArray(attachments)
    ? attachments.reduce((n: number, a) => n + (isObj(a) ? count(a.blocks) : 0), 0)
    : 0;
  return count(blocks) + inAttachments;
}

/**
 * Slack's answer to blocks it refuses: `invalid_blocks` with the reason in `errors` and in
 * `response_metadata.messages` ("[ERROR] …"), as chat.postMessage and chat.update give it.
 */
export function invalidBlocks(problem: string): Record<string, unknown> {
  return {
    ok: false,
    error: 'invalid_blocks',
    errors: [problem],
    response_metadata: { messages: [`[ERROR] ${problem}`] },
  };
}

/** Returns why Slack would refuse these blocks, or null when it would accept them. */
export function blocksProblem(blocks: unknown): string | null {
  if (!Array.isArray(blocks)) return 'blocks is not an array';
  if (blocks.length > 50) return 'more than 50 blocks';
  const ids = new Set<string>();
  for (const [i, block] of blocks.entries()) {
    const where = `blocks[${i}]`;
    if (!isObj(block)) return `${where}: not an object`;
    switch (block.type) {
      case 'header': {
        const bad = textObject(block.text, 150, `${where}.text`, true);
        if (bad) return bad;
        break;
      }
      case 'section': {
        const bad = sectionProblem(block, where);
        if (bad) return bad;
        break;
      }
      case 'table': {
        const bad = tableProblem(block, where);
        if (bad) return bad;
        break;
      }
      case 'context': {
        const els = block.elements;
        if (!Array.isArray(els) || els.length === 0 || els.length > 10) {
          return `${where}: 1-10 elements`;
        }
        for (const [j, el] of els.entries()) {
          const bad = textObject(el, 3000, `${where}.elements[${j}]`);
          if (bad) return bad;
        }
        break;
      }
      case 'actions': {
        const els = block.elements;
        if (!Array.isArray(els) || els.length === 0 || els.length > 25) {
          return `${where}: 1-25 elements`;
        }
        for (const [j, el] of els.entries()) {
          if (isObj(el) && (el.type === 'static_select' || el.type === 'multi_static_select')) {
            const bad = select(el, `${where}.elements[${j}]`, ids);
            if (bad) return bad;
            continue;
          }
          if (!isObj(el) || el.type !== 'button') return `${where}.elements[${j}]: not a button`;
          const bad = button(el, `${where}.elements[${j}]`, ids);
          if (bad) return bad;
        }
        break;
      }
      case 'divider':
        break;
      default:
        return `${where}: unknown block type ${String(block.type)}`;
    }
  }
  return null;
}

/** Why Slack would refuse this message's blocks and attachments (one table at most), or null. */
export function messageProblem(blocks: unknown, attachments: unknown): string | null {
  const problem = blocksProblem(blocks) ?? attachmentsProblem(attachments);
  if (problem) return problem;
  return tableCount(blocks, attachments) > 1 ? 'only one table block is allowed per message' : null;
}

/** Why Slack would refuse these attachments (each: a hex colour and valid blocks), or null. */
function attachmentsProblem(attachments: unknown): string | null {
  if (attachments === undefined) return null;
  if (!Array.isArray(attachments)) return 'attachments must be an array';
  for (const a of attachments as Array<Record<string, unknown>>) {
    if (a.color !== undefined && !/^#[0-9A-Fa-f]{6}$/.test(String(a.color)))
      return `attachment color ${String(a.color)} is not a hex colour`;
    const problem = blocksProblem(a.blocks ?? []);
    if (problem) return `attachment: ${problem}`;
  }
  return null;
}
