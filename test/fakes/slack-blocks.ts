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
        const bad = textObject(block.text, 3000, `${where}.text`);
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
