/**
 * The web inbox page (/inbox): the signed-in person's open cases across every room in one list,
 * filtered by room, service, type and policy, kept current by a long poll woken by the rooms' change
 * signals. Each row's buttons press its card's buttons (the card's tap route, the same pipeline);
 * all text is drawn with textContent, never as markup.
 */
import { PUSH_BUTTON, PUSH_BUTTON_SCRIPT, PWA_HEAD, REGISTER_SCRIPT } from './pwa.ts';

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d1f23}
header{background:#1f2937;color:#fff;padding:10px 16px;display:flex;gap:10px;align-items:center;flex-wrap:wrap}
header h1{font-size:17px;margin:0 12px 0 0}header a{color:#93c5fd}
input,select{padding:4px 6px;border-radius:4px;border:1px solid #d1d5db;max-width:140px}
main{max-width:860px;margin:0 auto;padding:12px}
.filters{display:flex;gap:8px;flex-wrap:wrap;margin-bottom:8px}
.row{background:#fff;border-radius:8px;padding:10px 12px;margin:8px 0;box-shadow:0 1px 2px #0002;border-left:4px solid #2563eb}
.prompt{font-weight:600}.meta{color:#4b5563;font-size:13px}
.buttons{display:flex;gap:8px;margin-top:8px;flex-wrap:wrap}
button,.link{border:1px solid #d1d5db;background:#fff;border-radius:6px;padding:5px 12px;cursor:pointer;font:inherit;text-decoration:none;color:#111}
button.primary{background:#2563eb;color:#fff;border-color:#2563eb}
button.danger{background:#dc2626;color:#fff;border-color:#dc2626}
button.confirming{background:#7f1d1d;color:#fff}
#empty{color:#6b7280;padding:20px 0}
.pick{margin-right:8px}.nobulk{color:#6b7280;font-size:12px;margin-top:4px}
#bulk,#confirm{background:#fff;border-radius:8px;padding:10px 12px;margin:8px 0;box-shadow:0 1px 2px #0002;border-left:4px solid #7c3aed;display:none}
#confirm ul{margin:6px 0;padding-left:20px}#confirm .skip{color:#6b7280}
#toast{position:fixed;bottom:16px;left:50%;transform:translateX(-50%);background:#111827;color:#fff;padding:8px 14px;border-radius:6px;display:none}
@media (max-width:600px){main{padding:6px}.row{padding:8px}}
`;

const SCRIPT = `
const uid = document.getElementById('uid');
if (!localStorage.getItem('hitl.uid')) localStorage.setItem('hitl.uid', 'u' + Math.random().toString(36).slice(2, 10));
uid.value = localStorage.getItem('hitl.uid');
const f = { room: document.getElementById('f-room'), service: document.getElementById('f-service'), type: document.getElementById('f-type'), policy: document.getElementById('f-policy') };
const list = document.getElementById('list');
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; };
function toast(text) { const t = document.getElementById('toast'); t.textContent = text; t.style.display = 'block'; clearTimeout(toast.timer); toast.timer = setTimeout(() => t.style.display = 'none', 3500); }
let etag = null, items = [];
const armed = new Map();
const selected = new Set();
function query(wait) {
  const p = new URLSearchParams({ user: uid.value.trim() });
  for (const [k, e] of Object.entries(f)) if (e.value.trim()) p.set(k, e.value.trim());
  if (wait) p.set('wait', String(wait));
  return '/web/api/inbox?' + p;
}
async function tap(item, action) {
  const res = await fetch('/web/api/rooms/' + item.room + '/messages/' + item.message + '/actions/' + action, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { id: uid.value.trim(), name: uid.value.trim() } }) });
  const body = await res.json().catch(() => ({}));
  if (body.outcome === 'confirm_required') armed.set(item.key, action); else armed.delete(item.key);
  toast(body.text || body.message || body.error || ('HTTP ' + res.status));
  draw(items);
  load();
}
function row(i) {
  const box = el('div', 'row'); box.dataset.key = i.key; box.dataset.room = i.room;
  const head = el('div', 'prompt');
  if (i.bulk.actions.length) {
    const pick = el('input', 'pick'); pick.type = 'checkbox'; pick.checked = selected.has(i.key);
    pick.setAttribute('aria-label', 'select for a bulk decision');
    pick.onchange = () => { if (pick.checked) selected.add(i.key); else selected.delete(i.key); bar(); };
    head.append(pick);
  }
  head.append(document.createTextNode(i.prompt));
  box.append(head);
  if (i.bulk.reason) box.append(el('div', 'nobulk', 'Not in bulk decisions: ' + i.bulk.reason));
  box.append(el('div', 'meta', 'web:' + i.room + ' · ' + i.from + ' · ' + i.type + (i.policy ? ' · ' + i.policy : '') + ' · waiting ' + i.age + ' · expires in ' + i.expires_in + (i.tally ? ' · ' + i.tally : '')));
  const b = el('div', 'buttons');
  for (const a of i.actions) {
    const confirming = armed.get(i.key) === a.action;
    const btn = el('button', a.style + (confirming ? ' confirming' : ''), confirming ? 'Tap again: ' + a.label : a.label);
    btn.dataset.action = a.action; btn.onclick = () => tap(i, a.action); b.append(btn);
  }
  const card = el('a', 'link', 'Card ↗'); card.href = '/chat?room=' + encodeURIComponent(i.room); b.append(card);
  if (i.link) { const d = el('a', 'link', 'Details ↗'); d.href = i.link; d.target = '_blank'; d.rel = 'noopener noreferrer'; b.append(d); }
  box.append(b);
  return box;
}
const post = async (body) => { const res = await fetch('/web/api/inbox/bulk', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { id: uid.value.trim(), name: uid.value.trim() }, ...body }) }); return { status: res.status, body: await res.json().catch(() => ({})) }; };
// The bulk bar: the actions every selected case may take together; pressing one previews it.
function bar() {
  const rows = items.filter((i) => selected.has(i.key));
  const box = document.getElementById('bulk');
  box.style.display = rows.length ? 'block' : 'none';
  const common = rows.length ? rows[0].actions.filter((a) => rows.every((r) => r.bulk.actions.includes(a.action))) : [];
  box.replaceChildren(el('span', null, rows.length + ' selected '), ...common.map((a) => { const b = el('button', a.style, a.label + ' all'); b.dataset.bulk = a.action; b.onclick = () => preview(a.action, rows.map((r) => r.key)); return b; }));
}
// The confirm step says exactly which cases get which action; only its Confirm sends anything.
async function preview(action, keys) {
  const p = await post({ action, keys });
  const box = document.getElementById('confirm'); box.style.display = 'block';
  if (p.status !== 200) { box.replaceChildren(el('div', null, p.body.message || ('HTTP ' + p.status))); return; }
  const ul = el('ul');
  for (const i of p.body.items) ul.append(el('li', null, i.label + ': ' + i.prompt + ' (web:' + i.room + ')'));
  for (const s of p.body.skipped) ul.append(el('li', 'skip', 'Left out: ' + (s.prompt || s.key) + ' (' + s.reason + ')'));
  const buttons = el('div', 'buttons');
  const cancel = el('button', null, 'Cancel'); cancel.onclick = () => { box.style.display = 'none'; };
  if (p.body.confirm) { const ok = el('button', 'primary', 'Confirm: ' + p.body.text.split(':')[0] + ' ' + p.body.count); ok.id = 'bulk-confirm'; ok.onclick = () => decide(p.body.confirm); buttons.append(ok); }
  buttons.append(cancel);
  box.replaceChildren(el('div', 'prompt', p.body.text), ul, buttons);
}
async function decide(confirm) {
  const box = document.getElementById('confirm');
  const r = await post({ confirm });
  const ul = el('ul');
  for (const x of r.body.results || []) { const it = items.find((i) => i.key === x.key); ul.append(el('li', 'result-' + x.result, x.result + ': ' + (it ? it.prompt : x.key) + ' (' + x.text + ')')); }
  box.replaceChildren(el('div', 'prompt', r.status === 200 ? 'Each case’s outcome:' : (r.body.message || ('HTTP ' + r.status))), ul);
  selected.clear(); load();
}
function draw(next) {
  items = next;
  for (const k of [...selected]) if (!items.some((i) => i.key === k && i.bulk.actions.length)) selected.delete(k);
  list.replaceChildren(...items.map(row));
  bar();
  document.getElementById('empty').style.display = items.length ? 'none' : 'block';
}
async function take(res) {
  if (res.status === 200) { etag = res.headers.get('etag'); draw((await res.json()).items); }
  else if (res.status === 401) location.reload();
  return res.status;
}
const ask = (wait) => fetch(query(wait), { headers: etag ? { 'if-none-match': etag } : {}, cache: 'no-store' });
async function load() { try { await take(await ask(0)); } catch {} }
for (const e of [uid, ...Object.values(f)]) e.onchange = () => { if (uid.value.trim()) localStorage.setItem('hitl.uid', uid.value.trim()); etag = null; load(); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function watch() {
  let pause = 0;
  await load();
  for (;;) {
    if (document.hidden) { await new Promise((r) => document.addEventListener('visibilitychange', r, { once: true })); continue; }
    try {
      const s = await take(await ask(25));
      if (s !== 200 && s !== 304) throw new Error('HTTP ' + s);
      pause = 0;
    } catch { pause = Math.min(30000, pause ? pause * 2 : 1000); await sleep(pause / 2 + Math.random() * pause / 2); }
  }
}
watch();
`;

/** The whole inbox page. */
export function inboxPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>hitl-relay inbox</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">${PWA_HEAD}<style>${STYLE}</style></head><body>
<header><h1>Inbox</h1><label>your id <input id="uid"></label>${PUSH_BUTTON}<a href="/chat">web chat</a></header>
<main><div class="filters"><input id="f-room" placeholder="room"><input id="f-service" placeholder="service"><input id="f-type" placeholder="type"><input id="f-policy" placeholder="policy (or none)" title="an approval policy's name, or none"></div>
<div id="bulk"></div><div id="confirm" role="dialog" aria-label="confirm the bulk decision"></div><div id="list"></div><div id="empty">Nothing is waiting for you.</div></main><div id="toast" role="status"></div>
<script>${SCRIPT}${REGISTER_SCRIPT}${PUSH_BUTTON_SCRIPT}</script></body></html>`;
}
