/**
 * Native HTML controls for asks in the web chat: the page script draws each kind from the message's
 * `ask` content (text with textContent only), collects a typed answer and posts it as
 * `{user, data, confirmed?}` to the message's action endpoint; problems come back per field.
 */

import type { AdapterAskStrings } from '../../src/adapter.ts';

/** The answer part of an action request body: `data` (an object) and `confirmed: true`. */
export function answerOf(body: unknown): { data?: Record<string, unknown>; confirmed?: true } {
  if (typeof body !== 'object' || body === null) return {};
  const { data, confirmed } = body as { data?: unknown; confirmed?: unknown };
  return {
    ...(typeof data === 'object' && data !== null && !Array.isArray(data)
      ? { data: data as Record<string, unknown> }
      : {}),
    ...(confirmed === true ? { confirmed: true as const } : {}),
  };
}

/** Styles of the controls. */
export const ASK_STYLE = `
.ask{margin-top:10px;display:flex;flex-direction:column;gap:6px}
.ask label{display:flex;gap:6px;align-items:center}
.ask .field{display:flex;flex-direction:column;gap:2px}
.ask input[type=text],.ask input[type=number],.ask input[type=date],.ask select,.ask textarea{font:inherit;padding:4px 6px;border:1px solid #d1d5db;border-radius:4px}
.ask textarea{min-height:5em}
.ask .impact{color:#b45309;font-size:12px}
.ask .desc{color:#6b7280;font-size:12px}
.ask .errors{color:#b91c1c;font-size:13px;white-space:pre-line}
.ask ol{margin:0;padding-left:22px}.ask li{margin:2px 0}.ask li button{padding:0 6px;margin-left:4px}
`;

/**
 * A template of the relay's words with `{name}` where the page script puts a value (a name given
 * as null leaves its part out, as a null value does).
 */
function marked(template: (...values: never[]) => string, ...names: Array<string | null>): string {
  const marks = names.map((n) => (n === null ? null : `{${n}}`));
  return (template as (...values: unknown[]) => string)(...marks);
}

/** The words the page script draws asks with, in the relay's LOCALE (templates `adapter.asks`). */
export function askScriptWords(words: AdapterAskStrings): Record<string, string> {
  const s = words.steps;
  return {
    choose: words.chooseOne,
    submit: s.submit,
    submitRanking: s.submitRanking,
    submitText: s.submitText,
    submitArguments: s.submitArguments,
    selectRange: marked(s.selectRange, 'min', 'max'),
    selectAtLeast: marked(s.selectRange, 'min', null),
    orderHint: s.orderHint,
    moveUp: marked(s.moveUp, 'label'),
    moveDown: marked(s.moveDown, 'label'),
    tool: marked(s.tool, 'name'),
    readOnly: s.readOnly,
  };
}

/** The page script's words as a script statement (JSON with no way out of the script element). */
export function askWordsScript(words: AdapterAskStrings): string {
  const json = JSON.stringify(askScriptWords(words)).replace(/</g, '\\u003c');
  return `const W = ${json};
const fill = (t, v) => t.replace(/\\{(\\w+)\\}/g, (m, k) => (k in v ? String(v[k]) : m));
`;
}

/**
 * The page script part (after askWordsScript): `askControls(m, send)` returns the controls of message `m`, kept per
 * message so the page's periodic redraw does not wipe what the person is typing.
 */
export const ASK_SCRIPT = `
const askForms = new Map();
function askControls(m, send) {
  const kept = askForms.get(m.id);
  if (kept) return kept;
  const c = m.ask.content, kind = m.ask.kind;
  const form = el('form', 'ask'); form.dataset.kind = kind; form.noValidate = true;
  const errors = el('div', 'errors'); errors.setAttribute('role', 'alert');
  const getters = {};
  const field = (key, label, type, value, o = {}) => {
    const wrap = el('div', 'field'); let input;
    if (type === 'BOOLEAN') {
      const l = el('label'); input = el('input'); input.type = 'checkbox'; input.checked = value === true;
      l.append(input, document.createTextNode(label)); wrap.append(l);
      getters[key] = () => input.checked;
    } else {
      wrap.append(el('span', null, label + (o.required ? ' *' : '')));
      if (type === 'DROPDOWN') {
        input = el('select'); input.append(new Option(W.choose, ''));
        for (const v of o.options || []) input.append(new Option(v, v));
      } else {
        input = el('input'); input.type = type === 'NUMBER' ? 'number' : type === 'DATE' ? 'date' : 'text';
        if (type === 'NUMBER') input.step = 'any';
        if (value !== undefined && value !== null) input.value = String(value);
        if (o.placeholder) input.placeholder = o.placeholder;
      }
      wrap.append(input);
      getters[key] = () => {
        const v = input.value;
        if (v === '') return undefined;
        if (type === 'NUMBER') { const n = Number(v); return Number.isFinite(n) ? n : v; }
        return v;
      };
    }
    input.name = key; input.dataset.key = key; if (o.readOnly) input.disabled = true;
    form.append(wrap);
  };
  const collect = (prefix) => { const out = {}; for (const [k, g] of Object.entries(getters)) { if (!k.startsWith(prefix)) continue; const v = g(); if (v !== undefined) out[k.slice(prefix.length)] = v; } return out; };
  const risky = (items) => items.filter((x) => x.irreversible);
  const submit = async (action, data, irreversible) => {
    let confirmed = false;
    if (irreversible.length) {
      const text = irreversible.map((x) => x.label + (x.impact_hint ? ' (' + x.impact_hint + ')' : '')).join(', ');
      if (!confirm('This cannot be undone: ' + text + '. Continue?')) return;
      confirmed = true;
    }
    errors.textContent = '';
    const r = await send(m.id, action, data, confirmed);
    if (r && r.outcome === 'invalid_answer') errors.textContent = (r.issues || []).map((i) => i.path + ': ' + i.message).join('\\n') || r.text;
    else if (r && r.outcome === 'submitted') askForms.delete(m.id);
  };
  const button = (label, style, onClick) => { const b = el('button', style, label); b.type = 'button'; b.onclick = onClick; return b; };
  const row = el('div', 'buttons');
  const hint = (o) => { const s = []; if (o.description) s.push(el('span', 'desc', o.description)); if (o.impact_hint || o.irreversible) s.push(el('span', 'impact', (o.irreversible ? '⚠ cannot be undone' : '') + (o.impact_hint ? (o.irreversible ? ': ' : '') + o.impact_hint : ''))); return s; };
  if (c.type === 'approval') {
    if (c.sub_type === 'modify') for (const f of c.modifiable) field('v.' + f.key, f.label, f.type, f.type === 'DROPDOWN' ? undefined : f.value, { options: f.type === 'DROPDOWN' ? f.value : undefined });
    const standard = c.choices.every((ch) => ch.key === 'approve' || ch.key === 'reject');
    for (const ch of c.choices) {
      const b = button(ch.label, ch.key === 'reject' ? 'danger' : 'primary', () => {
        const data = { decision: ch.key }; if (c.sub_type === 'modify') data.values = collect('v.');
        submit(standard ? ch.key : 'submit', data, risky([ch]));
      });
      b.dataset.choice = ch.key; row.append(b, ...hint(ch));
    }
  } else if (kind === 'decision.single' || kind === 'decision.multi') {
    const multi = kind === 'decision.multi';
    if (multi) form.append(el('div', 'desc', c.max_select !== null ? fill(W.selectRange, { min: c.min_select, max: c.max_select }) : fill(W.selectAtLeast, { min: c.min_select })));
    const boxes = c.options.map((o) => {
      const l = el('label'); const i = el('input'); i.type = multi ? 'checkbox' : 'radio'; i.name = 'opt-' + m.id; i.value = o.key;
      l.append(i, document.createTextNode(o.label), ...hint(o)); form.append(l); return i;
    });
    row.append(button(W.submit, 'primary', () => {
      const picked = boxes.filter((b) => b.checked).map((b) => b.value);
      const chosen = c.options.filter((o) => picked.includes(o.key));
      submit('select', multi ? { selected: picked } : picked.length ? { selected: picked[0] } : {}, risky(chosen));
    }));
  } else if (kind === 'decision.rank') {
    const order = c.options.map((o) => o.key); const ol = el('ol');
    const drawRank = () => ol.replaceChildren(...order.map((k, i) => {
      const o = c.options.find((x) => x.key === k); const li = el('li', null, o.label); li.dataset.key = k;
      const up = button('↑', '', () => { if (i > 0) { [order[i - 1], order[i]] = [order[i], order[i - 1]]; drawRank(); } });
      const down = button('↓', '', () => { if (i < order.length - 1) { [order[i + 1], order[i]] = [order[i], order[i + 1]]; drawRank(); } });
      up.setAttribute('aria-label', fill(W.moveUp, { label: o.label })); down.setAttribute('aria-label', fill(W.moveDown, { label: o.label }));
      li.append(up, down); return li;
    }));
    drawRank(); form.append(el('div', 'desc', W.orderHint), ol);
    row.append(button(W.submitRanking, 'primary', () => submit('submit', { ranking: [...order] }, [])));
  } else if (kind === 'context.freetext') {
    form.append(el('span', null, c.input.label)); const t = el('textarea'); t.name = 'value'; if (c.input.placeholder) t.placeholder = c.input.placeholder; form.append(t);
    row.append(button(W.submit, 'primary', () => submit('submit', { value: t.value }, [])));
  } else if (kind === 'context.form') {
    for (const f of c.fields) field('f.' + f.key, f.label, f.type, undefined, { required: f.required, placeholder: f.placeholder, options: f.options });
    row.append(button(W.submit, 'primary', () => submit('submit', { values: collect('f.') }, [])));
  } else if (kind === 'context.confirm') {
    if (c.statement) form.append(el('div', 'statement', c.statement));
    row.append(button('Confirm', 'primary', () => submit('confirm', {}, [])), button('Decline', '', () => submit('cancel', {}, [])));
  } else if (kind === 'edit.content') {
    const t = el('textarea'); t.name = 'content'; t.value = c.draft; t.rows = 8; form.append(t);
    row.append(button(W.submitText, 'primary', () => submit('submit', { content: t.value }, [])));
  } else if (kind === 'edit.tool_args') {
    form.append(el('div', 'desc', fill(W.tool, { name: c.tool_name })));
    for (const a of c.args) field('a.' + a.key, a.label + (a.editable ? '' : ' ' + W.readOnly), a.type, a.value, { readOnly: !a.editable });
    row.append(button(W.submitArguments, 'primary', () => { const args = collect('a.'); for (const a of c.args) if (!a.editable) delete args[a.key]; submit('submit', { args }, []); }));
  }
  form.append(row, errors);
  askForms.set(m.id, form);
  return form;
}
async function answer(id, action, data, confirmed) {
  const res = await fetch('/web/api/rooms/' + room + '/messages/' + id + '/actions/' + action, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { id: uid.value, name: uname.value }, data, ...(confirmed ? { confirmed: true } : {}) }) });
  const body = await res.json().catch(() => ({}));
  toast(body.text || body.message || body.error || ('HTTP ' + res.status));
  load();
  return body;
}
`;
