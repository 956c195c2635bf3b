/** The web chat page: plain HTML and a little script; all text is drawn with textContent, never as markup. */
import type { AdapterAskStrings } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import { ASK_SCRIPT, ASK_STYLE, askWordsScript } from './ask-controls.ts';
import { PWA_HEAD, REGISTER_SCRIPT } from './pwa.ts';

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d1f23}
header{background:#1f2937;color:#fff;padding:10px 16px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
header h1{font-size:17px;margin:0 12px 0 0}
header input{padding:4px 6px;border-radius:4px;border:0;width:120px}
main{max-width:760px;margin:0 auto;padding:16px}
.demo{display:flex;gap:6px;flex-wrap:wrap;margin-bottom:14px}
.demo button{font-size:13px}
.msg{background:#fff;border-radius:8px;padding:12px 14px;margin:10px 0;box-shadow:0 1px 2px #0002;border-left:4px solid #2563eb}
.msg.reply{margin-left:32px}
.msg.notice{border-left-color:#9ca3af}
.msg.final{background:#e9ebef;box-shadow:inset 0 0 0 1px #d5d8de;border-left-color:#6b7280}
.msg.final .prompt,.msg.final .title{color:#4b5563}
.msg.state-completed{border-left-color:#059669}
.msg.state-expired,.msg.state-cancelled{border-left-color:#9ca3af}
.head{display:flex;gap:8px;align-items:center}
.title{font-weight:600}
.badge{font-size:11px;font-weight:600;letter-spacing:.03em;text-transform:uppercase;border-radius:10px;padding:1px 8px;background:#dbeafe;color:#1e40af}
.badge.final{background:#e5e7eb;color:#374151}
.badge.state-completed{background:#d1fae5;color:#065f46}
.msg.outcome-approved{border-left-color:#059669}.badge.outcome-approved{background:#d1fae5;color:#065f46}
.msg.outcome-rejected{border-left-color:#dc2626}.badge.outcome-rejected{background:#fee2e2;color:#991b1b}
.msg.outcome-answered{border-left-color:#2563eb}.badge.outcome-answered{background:#dbeafe;color:#1e40af}
.msg.outcome-expired{border-left-color:#d97706}.badge.outcome-expired{background:#fef3c7;color:#92400e}
.msg.outcome-cancelled{border-left-color:#9ca3af}.badge.outcome-cancelled{background:#e5e7eb;color:#374151}
.msg.outcome-ended_by_policy{border-left-color:#7c3aed}.badge.outcome-ended_by_policy{background:#ede9fe;color:#5b21b6}
.prompt{margin:4px 0}
.line{color:#4b5563;font-size:13px}
.hint{color:#b45309;font-size:13px;margin-top:4px}
.confirm-note{color:#991b1b;font-size:13px;margin-top:6px;font-weight:600}
.status{color:#374151;font-size:13px;margin-top:6px;white-space:pre-line}
.buttons{display:flex;gap:8px;margin-top:10px;flex-wrap:wrap}
button,.link{border:1px solid #d1d5db;background:#fff;border-radius:6px;padding:5px 12px;cursor:pointer;font:inherit;text-decoration:none;color:#111}
button.primary{background:#2563eb;color:#fff;border-color:#2563eb}
button.danger{background:#dc2626;color:#fff;border-color:#dc2626}
button.confirming{background:#7f1d1d;border-color:#7f1d1d;color:#fff;outline:3px solid #fca5a5}
#toast{position:fixed;bottom:16px;left:50%;transform:translateX(-50%);background:#111827;color:#fff;padding:8px 14px;border-radius:6px;display:none}
`;

const SCRIPT = `
const q = new URLSearchParams(location.search);
const room = (q.get('room') || 'lobby').replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64) || 'lobby';
document.getElementById('room').textContent = 'web:' + room;
const uid = document.getElementById('uid'), uname = document.getElementById('uname');
// A stable id: made once and kept, so a reload is the same person (allowlists, confirm taps).
if (!localStorage.getItem('hitl.uid')) localStorage.setItem('hitl.uid', 'u' + Math.random().toString(36).slice(2, 10));
uid.value = localStorage.getItem('hitl.uid');
uname.value = localStorage.getItem('hitl.uname') || 'Web user';
for (const e of [uid, uname]) e.onchange = () => { if (uid.value.trim()) localStorage.setItem('hitl.uid', uid.value.trim()); localStorage.setItem('hitl.uname', uname.value); };
const list = document.getElementById('messages');
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; };
function toast(text) { const t = document.getElementById('toast'); t.textContent = text; t.style.display = 'block'; clearTimeout(toast.timer); toast.timer = setTimeout(() => t.style.display = 'none', 3500); }
const BADGE = { pending: 'Open', opened: 'Open', in_progress: 'In progress', completed: 'Done', expired: 'Expired', cancelled: 'Cancelled' };
// A final card's badge says how it ended (approved and rejected differ at a glance, by colour too).
const OUTCOME = { approved: 'Approved', rejected: 'Rejected', answered: 'Answered', expired: 'Expired', cancelled: 'Cancelled', ended_by_policy: 'Ended by policy' };
// Shown cards by message id: a card is re-drawn only when its message (or its confirm state)
// changed, so a click, a hover or a text selection on an unchanged card is never lost.
const shown = new Map();
// First taps on irreversible actions waiting for their second tap: id -> {action, text, until}.
const armed = new Map();
let latest = [];
let first = true;
async function tap(id, action) {
  const res = await fetch('/web/api/rooms/' + room + '/messages/' + id + '/actions/' + action, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { id: uid.value, name: uname.value } }) });
  const body = await res.json().catch(() => ({}));
  // The relay counts the confirming tap only once the warning has been up for a second (a
  // double-click is one tap): the button stays disabled until then.
  if (body.outcome === 'confirm_required') { armed.set(id, { action, text: body.text, until: Date.now() + 55000, ready: Date.now() + 1100 }); setTimeout(() => draw(latest), 1150); }
  else armed.delete(id);
  toast(body.text || body.message || body.error || ('HTTP ' + res.status));
  if (body.message && body.message.id) merge([body.message]); else draw(latest);
  load();
}
function build(m, arm) {
  const out = m.final && m.outcome ? m.outcome.kind : '';
  const box = el('div', 'msg' + (m.reply_to ? ' reply' : '') + (m.case ? '' : ' notice') + (m.final ? ' final' : '') + (m.state ? ' state-' + m.state : '') + (out ? ' outcome-' + out : ''));
  box.dataset.id = m.id; box.dataset.case = m.case || ''; box.dataset.state = m.state || '';
  const head = el('div', 'head');
  if (m.title) head.append(el('span', 'title', m.title));
  if (out) head.append(el('span', 'badge final outcome-' + out, OUTCOME[out] || out));
  else if (m.state) head.append(el('span', 'badge' + (m.final ? ' final' : '') + ' state-' + m.state, BADGE[m.state] || m.state));
  if (head.childNodes.length) box.append(head);
  box.append(el('div', 'prompt', m.prompt));
  for (const l of m.lines) box.append(el('div', 'line', l));
  if (m.hint) box.append(el('div', 'hint', m.hint));
  if (m.ask) box.append(askControls(m, answer));
  if (m.status) box.append(el('div', 'status', m.status));
  if (arm) box.append(el('div', 'confirm-note', arm.text));
  const row = el('div', 'buttons');
  for (const a of m.ask ? [] : m.actions) {
    const confirming = arm && arm.action === a.action;
    const b = el('button', a.style + (confirming ? ' confirming' : ''), confirming ? 'Tap again: ' + a.label : a.label);
    b.dataset.action = a.action;
    if (confirming && arm.ready > Date.now()) b.disabled = true;
    b.onclick = () => tap(m.id, a.action);
    row.append(b);
  }
  if (m.open_link) { const o = el('a', 'link', 'Opens '); const h = el('b', '', m.open_link.host); o.append(h, ' ↗'); o.href = m.open_link.url; o.title = m.open_link.url; o.target = '_blank'; o.rel = 'noopener noreferrer nofollow'; o.referrerPolicy = 'no-referrer'; row.append(o); }
  if (m.link) { const a = el('a', 'link', m.link.label + ' ↗'); a.href = m.link.url; a.target = '_blank'; a.rel = 'noopener noreferrer'; row.append(a); }
  if (row.childNodes.length) box.append(row);
  return box;
}
function draw(messages) {
  latest = messages;
  const now = Date.now();
  let fresh = null;
  for (const m of messages) {
    let arm = armed.get(m.id);
    if (arm && (arm.until < now || m.final || !m.actions.some((a) => a.action === arm.action))) { armed.delete(m.id); arm = undefined; }
    const sig = JSON.stringify(m) + (arm ? '|' + arm.action + (arm.ready > now ? '|wait' : '') : '');
    const had = shown.get(m.id);
    if (had && had.sig === sig) continue;
    const box = build(m, arm);
    if (had) had.box.replaceWith(box); else { list.append(box); fresh = box; }
    shown.set(m.id, { sig, box });
  }
  // A new card arrives at the bottom: bring it into view (not on the first draw of the room).
  if (fresh && !first) fresh.scrollIntoView({ block: 'nearest' });
  if (first && fresh) fresh.scrollIntoView({ block: 'end' });
  first = false;
}
function merge(changed) { draw(latest.map((m) => changed.find((c) => c.id === m.id) || m)); }
let loading = false;
// The room's ETag: an unchanged room is a 304 (the browser keeps the last answer).
function ask(wait, signal) {
  return fetch('/web/api/rooms/' + room + '/messages' + (wait ? '?wait=' + wait : ''), { headers: load.etag ? { 'if-none-match': load.etag } : {}, cache: 'no-store', signal });
}
async function take(res) {
  if (res.status === 200) { load.etag = res.headers.get('etag'); draw(await res.json()); }
  else if (res.status === 401) location.reload(); // the session ended: show the sign-in form
  return res.status;
}
// Reads the room now (after a tap or a new case), besides the waiting request.
async function load() {
  if (loading) return;
  loading = true;
  try { await take(await ask(0)); } catch {} finally { loading = false; }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Waits for the room to change: the relay answers when it does (or 304 after 25 s) and the page
// asks again at once. A dropped connection or a refusal is retried with growing pauses.
async function watch() {
  let pause = 0;
  for (;;) {
    if (document.hidden) { await new Promise((r) => document.addEventListener('visibilitychange', r, { once: true })); continue; }
    try {
      const status = await take(await ask(25));
      if (status !== 200 && status !== 304) throw new Error('HTTP ' + status);
      pause = 0;
    } catch {
      pause = Math.min(30000, pause ? pause * 2 : 1000);
      await sleep(pause / 2 + Math.random() * pause / 2);
    }
  }
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
// One waiting request while the page is visible; a hidden tab stops asking after its last wait.
watch();
`;

/** The page's icon (an SVG, also served at /favicon.ico). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f2937"/><path d="M9 17l5 5 10-12" fill="none" stroke="#34d399" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>';

const TYPES = ['approval', 'selection', 'input', 'confirmation', 'escalation'];

/**
 * The whole page; `demo` shows the buttons that create cases at the built-in demo service, `words`
 * are the relay's (English without them).
 */
export function chatPage(options: { demo?: boolean; words?: AdapterAskStrings } = {}): string {
  const buttons = TYPES.map(
    (t) =>
      `<button data-type="${t}" data-inline="1">${t}</button><button data-type="${t}" data-inline="0">${t} (link only)</button>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>hitl-relay web chat</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">${PWA_HEAD}<style>${STYLE}${ASK_STYLE}</style></head><body>
<header><h1>hitl-relay</h1><span>room <code id="room"></code></span>
<label>your id <input id="uid"></label><label>name <input id="uname"></label></header>
<main>${options.demo === false ? '' : `<div class="demo" title="Create a case at the built-in demo service and send it here">New demo case: ${buttons}</div>`}
<div id="messages"></div></main><div id="toast" role="status"></div>
<script>${SCRIPT}${askWordsScript(options.words ?? stringsOf(null).asks)}${ASK_SCRIPT}${REGISTER_SCRIPT}</script></body></html>`;
}
