/** The web chat page: plain HTML and a little script; all text is drawn with textContent, never as markup. */
import { ASK_SCRIPT, ASK_STYLE } from './ask-controls.ts';

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d1f23}
header{background:#1f2937;color:#fff;padding:10px 16px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
header h1{font-size:17px;margin:0 12px 0 0}
header input{padding:4px 6px;border-radius:4px;border:0;width:120px}
main{max-width:760px;margin:0 auto;padding:16px}
.demo{display:flex;gap:6px;flex-wrap:wrap;margin-bottom:14px}
.demo button{font-size:13px}
.msg{background:#fff;border-radius:8px;padding:12px 14px;margin:10px 0;box-shadow:0 1px 2px #0002}
.msg.reply{margin-left:32px;border-left:3px solid #9ca3af}
.msg.final{opacity:.92}
.title{font-weight:600}
.prompt{margin:4px 0}
.line{color:#4b5563;font-size:13px}
.hint{color:#b45309;font-size:13px;margin-top:4px}
.status{color:#374151;font-size:13px;margin-top:6px;white-space:pre-line}
.buttons{display:flex;gap:8px;margin-top:10px;flex-wrap:wrap}
button,.link{border:1px solid #d1d5db;background:#fff;border-radius:6px;padding:5px 12px;cursor:pointer;font:inherit;text-decoration:none;color:#111}
button.primary{background:#2563eb;color:#fff;border-color:#2563eb}
button.danger{background:#dc2626;color:#fff;border-color:#dc2626}
#toast{position:fixed;bottom:16px;left:50%;transform:translateX(-50%);background:#111827;color:#fff;padding:8px 14px;border-radius:6px;display:none}
`;

const SCRIPT = `
const q = new URLSearchParams(location.search);
const room = (q.get('room') || 'lobby').replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64) || 'lobby';
document.getElementById('room').textContent = 'web:' + room;
const uid = document.getElementById('uid'), uname = document.getElementById('uname');
uid.value = localStorage.getItem('hitl.uid') || 'u' + Math.random().toString(36).slice(2, 8);
uname.value = localStorage.getItem('hitl.uname') || 'Web user';
for (const el of [uid, uname]) el.onchange = () => { localStorage.setItem('hitl.uid', uid.value); localStorage.setItem('hitl.uname', uname.value); };
const list = document.getElementById('messages');
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; };
function toast(text) { const t = document.getElementById('toast'); t.textContent = text; t.style.display = 'block'; clearTimeout(toast.timer); toast.timer = setTimeout(() => t.style.display = 'none', 3500); }
async function tap(id, action) {
  const res = await fetch('/web/api/rooms/' + room + '/messages/' + id + '/actions/' + action, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { id: uid.value, name: uname.value } }) });
  const body = await res.json().catch(() => ({}));
  toast(body.text || body.message || body.error || ('HTTP ' + res.status));
  load();
}
function draw(messages) {
  list.replaceChildren(...messages.map((m) => {
    const box = el('div', 'msg' + (m.reply_to ? ' reply' : '') + (m.final ? ' final' : ''));
    box.dataset.id = m.id; box.dataset.case = m.case || '';
    if (m.title) box.append(el('div', 'title', m.title));
    box.append(el('div', 'prompt', m.prompt));
    for (const l of m.lines) box.append(el('div', 'line', l));
    if (m.hint) box.append(el('div', 'hint', m.hint));
    if (m.ask) box.append(askControls(m, answer));
    if (m.status) box.append(el('div', 'status', m.status));
    const row = el('div', 'buttons');
    for (const a of m.ask ? [] : m.actions) { const b = el('button', a.style, a.label); b.dataset.action = a.action; b.onclick = () => tap(m.id, a.action); row.append(b); }
    if (m.link) { const a = el('a', 'link', m.link.label + ' ↗'); a.href = m.link.url; a.target = '_blank'; a.rel = 'noopener noreferrer'; row.append(a); }
    if (row.childNodes.length) box.append(row);
    return box;
  }));
}
async function load() {
  try { const res = await fetch('/web/api/rooms/' + room + '/messages'); if (res.ok) draw(await res.json()); } catch {}
}
async function demo(type, inline) {
  const r = await fetch('/demo/api/reviews?type=' + type + '&inline=' + inline, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (r.status !== 202) return toast('The demo service answered ' + r.status);
  const response = await r.json();
  const c = await fetch('/v1/cases', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ target: 'web:' + room, response }) });
  const body = await c.json().catch(() => ({}));
  toast(c.ok ? 'Case ' + body.id + ' sent' : (body.message || body.error || 'HTTP ' + c.status));
  load();
}
for (const b of document.querySelectorAll('.demo button')) b.onclick = () => demo(b.dataset.type, b.dataset.inline);
load(); setInterval(load, 1000);
`;

const TYPES = ['approval', 'selection', 'input', 'confirmation', 'escalation'];

/** The whole page. */
export function chatPage(): string {
  const demo = TYPES.map(
    (t) =>
      `<button data-type="${t}" data-inline="1">${t}</button><button data-type="${t}" data-inline="0">${t} (link only)</button>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>hitl-relay web chat</title><style>${STYLE}${ASK_STYLE}</style></head><body>
<header><h1>hitl-relay</h1><span>room <code id="room"></code></span>
<label>your id <input id="uid"></label><label>name <input id="uname"></label></header>
<main><div class="demo" title="Create a case at the built-in demo service and send it here">New demo case: ${demo}</div>
<div id="messages"></div></main><div id="toast" role="status"></div>
<script>${SCRIPT}${ASK_SCRIPT}</script></body></html>`;
}
