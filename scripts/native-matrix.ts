/**
 * The NATIVE matrix of docs/asks.md: for every kind on every platform, whether the card the
 * platform's own renderer draws lets a person answer in the chat, and the size beyond which it
 * falls back to Details (the signed review page). Nothing here is written by hand but the reason
 * of a cell that is not native: each cell is read from the real renderers, drawing the kind's
 * fixture (test/asks/fixtures.ts), and each limit is found by drawing the kind ever larger (more
 * options, fields, characters) up to what an ask may hold (ASK_LIMITS). A reason given for a
 * native cell, or a cell that is not native without one, stops the run.
 *   npx tsx scripts/native-matrix.ts   (rewrites the table in docs/asks.md)
 * test/asks/native-matrix.test.ts fails when the page and the renderers disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { renderMessage as renderDiscord } from '../platforms/discord/render.ts';
import { dialogCard, renderCard as renderGoogleChat } from '../platforms/googlechat/render.ts';
import { renderCard as renderSlack } from '../platforms/slack/render.ts';
import { renderTeamsCard } from '../platforms/teams/render.ts';
import { renderCard as renderTelegram } from '../platforms/telegram/render.ts';
import { renderWebMessage } from '../platforms/web/render.ts';
import { renderCard as renderWhatsApp } from '../platforms/whatsapp/render.ts';
import { ALL_KINDS, ASK_LIMITS, type AskKind, parseAskContent } from '../src/asks/content.ts';
import { protocolOf } from '../src/asks/protocol.ts';
import { renderCase } from '../src/cases/render-case.ts';
import type { Card } from '../src/render/card.ts';
import { loadStrings } from '../src/render/templates.ts';
import { KINDS } from '../test/asks/fixtures.ts';
import { sampleCase } from '../test/contract/store-contract.ts';

/** What a control on a card does: decide with one tap, pick options, or let a person type. */
type Control = 'button' | 'pick' | 'typing';
type Json = any;

/** Every object inside a JSON value (blocks, components, Adaptive Card elements, widgets). */
function* objects(v: unknown): Generator<Json> {
  if (Array.isArray(v)) for (const x of v) yield* objects(x);
  else if (v && typeof v === 'object') {
    yield v;
    for (const x of Object.values(v)) yield* objects(x);
  }
}

/** Telegram: callback buttons (`ha:<key>:f` starts typing, `ha:<key>:p|t|r|d|u` picks). */
function telegram(card: Card): Set<Control> {
  const out = new Set<Control>();
  for (const b of renderTelegram(card).reply_markup?.inline_keyboard.flat() ?? []) {
    const data = 'callback_data' in b ? b.callback_data : undefined;
    if (!data) continue;
    out.add(
      /^ha:[^:]+:f$/.test(data) ? 'typing' : /^ha:[^:]+:[ptrdu]/.test(data) ? 'pick' : 'button',
    );
  }
  return out;
}

/** Slack: selects pick, `hitl-open:` opens a modal to type in, other buttons (not links) decide. */
function slack(card: Card): Set<Control> {
  const out = new Set<Control>();
  for (const e of objects(renderSlack(card).blocks)) {
    if (/^(multi_)?static_select$/.test(e.type)) out.add('pick');
    else if (e.type === 'button' && !e.url)
      out.add(String(e.action_id).startsWith('hitl-open:') ? 'typing' : 'button');
  }
  return out;
}

/** Discord: selects and `hitl-ask:` buttons pick, `…:open` opens a modal, choice buttons decide. */
function discord(card: Card): Set<Control> {
  const out = new Set<Control>();
  for (const e of objects(renderDiscord(card).components)) {
    if (e.type === 3) out.add('pick');
    else if (e.type === 2 && e.custom_id) {
      const id = String(e.custom_id);
      if (/^hitl-ask:[^:]+:open$/.test(id)) out.add('typing');
      else if (/^hitl-ask:[^:]+:c\d+$/.test(id) || !id.startsWith('hitl-ask:')) out.add('button');
      else out.add('pick');
    }
  }
  return out;
}

/** Teams: Action.Execute / Submit decide, Input.ChoiceSet picks, every Input.* takes a value. */
function teams(card: Card): Set<Control> {
  const out = new Set<Control>();
  for (const e of objects(renderTeamsCard(card))) {
    if (e.type === 'Action.Execute' || e.type === 'Action.Submit') out.add('button');
    if (e.type === 'Input.ChoiceSet') out.add('pick');
    if (String(e.type).startsWith('Input.')) out.add('typing');
  }
  return out;
}

/**
 * Google Chat: buttons with the relay's function decide, selection inputs pick, inputs type; a
 * button with interaction OPEN_DIALOG opens the ask's dialog, whose widgets count as the card's.
 */
function googlechat(card: Card): Set<Control> {
  const out = new Set<Control>();
  const m = renderGoogleChat(card);
  const dialog = [...objects(m)].some((e) => e.interaction === 'OPEN_DIALOG')
    ? dialogCard(card)
    : null;
  for (const e of objects([m, dialog])) {
    if (e.function === 'hitl') out.add('button');
    if (e.selectionInput) out.add('pick');
    if (e.textInput || e.selectionInput || e.dateTimePicker) out.add('typing');
  }
  return out;
}

/** WhatsApp: reply buttons and list rows (`ha:<key>:p` picks); typing would take a Flow. */
function whatsapp(card: Card): Set<Control> {
  const out = new Set<Control>();
  const m = renderWhatsApp(card, 'Choose…') as Json;
  if (m.type !== 'interactive') return out;
  if (m.interactive.type === 'flow') out.add('typing');
  for (const e of objects(m.interactive.action))
    if (typeof e.id === 'string') out.add(/^ha:[^:]+:p/.test(e.id) ? 'pick' : 'button');
  return out;
}

/** The web chat: the page draws an ask's own controls (ask-controls.ts) from the message's `ask`. */
function web(card: Card): Set<Control> {
  const m = renderWebMessage('m1', card, null);
  const out = new Set<Control>(m.actions.length ? ['button'] : []);
  if (m.ask) for (const c of ['button', 'pick', 'typing'] as const) out.add(c);
  return out;
}

/** The columns, as the platforms' docs name them. */
export const PLATFORMS: Array<{
  name: string;
  label: string;
  controls: (c: Card) => Set<Control>;
}> = [
  { name: 'web', label: 'web chat', controls: web },
  { name: 'telegram', label: 'Telegram', controls: telegram },
  { name: 'slack', label: 'Slack', controls: slack },
  { name: 'discord', label: 'Discord', controls: discord },
  { name: 'teams', label: 'Teams', controls: teams },
  { name: 'googlechat', label: 'Google Chat', controls: googlechat },
  { name: 'whatsapp', label: 'WhatsApp', controls: whatsapp },
];

/** What a kind's card must offer to be answered in the chat. */
const NEEDS: Record<AskKind, Control> = {
  'approval.binary': 'button',
  'approval.modify': 'typing',
  'decision.single': 'pick',
  'decision.multi': 'pick',
  'decision.rank': 'pick',
  'context.freetext': 'typing',
  'context.form': 'typing',
  'context.confirm': 'button',
  'edit.content': 'typing',
  'edit.tool_args': 'typing',
};

/** Why a cell is not native (the only words of the table written by hand). */
export const REASONS: Record<string, string> = {
  'googlechat decision.rank': 'Chat has no ordering widget',
  'whatsapp approval.modify':
    'the buttons decide without edits; a message has no inputs outside WhatsApp Flows',
  'whatsapp decision.multi': 'no multi-select outside WhatsApp Flows',
  'whatsapp decision.rank': 'no ordering control outside WhatsApp Flows',
  'whatsapp context.freetext': 'no text input outside WhatsApp Flows',
  'whatsapp context.form': 'no inputs outside WhatsApp Flows',
  'whatsapp edit.content': 'no text input outside WhatsApp Flows',
  'whatsapp edit.tool_args': 'no inputs outside WhatsApp Flows',
};

const option = (i: number) => ({ key: `o${i}`, label: `Option ${i}`, description: null });
const field = (i: number, value: unknown = 'v') => ({ key: `f${i}`, label: `Field ${i}`, value });
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The sizes a kind is drawn at to find where a platform stops drawing it natively. */
const DIMENSIONS: Array<{
  what: string;
  kinds: AskKind[];
  min: number;
  max: number;
  make: (c: Json, n: number) => Json;
}> = [
  {
    what: 'options',
    kinds: ['decision.single', 'decision.multi', 'decision.rank'],
    min: 2,
    max: ASK_LIMITS.options,
    make: (c, n) => ({
      ...c,
      options: range(n).map(option),
      ...(c.sub_type === 'multi' ? { max_select: null } : {}),
    }),
  },
  {
    // The first two keys are approve / reject; a third choice has a key of its own.
    what: 'choices',
    kinds: ['approval.binary'],
    min: 2,
    max: ASK_LIMITS.choices,
    make: (c, n) => ({
      ...c,
      choices: range(n).map((i) => ({
        key: ['approve', 'reject'][i - 1] ?? `c${i}`,
        label: `Choice ${i}`,
      })),
    }),
  },
  {
    what: 'fields',
    kinds: ['context.form'],
    min: 1,
    max: ASK_LIMITS.fields,
    make: (c, n) => ({
      ...c,
      fields: range(n).map((i) => ({ key: `f${i}`, label: `Field ${i}`, type: 'STRING' })),
    }),
  },
  {
    what: 'values',
    kinds: ['approval.modify'],
    min: 1,
    max: ASK_LIMITS.fields,
    make: (c, n) => ({ ...c, modifiable: range(n).map((i) => ({ ...field(i), type: 'STRING' })) }),
  },
  {
    what: 'arguments',
    kinds: ['edit.tool_args'],
    min: 1,
    max: ASK_LIMITS.fields,
    make: (c, n) => ({ ...c, args: range(n).map((i) => ({ ...field(i), type: 'STRING' })) }),
  },
  {
    what: 'characters in a value',
    kinds: ['approval.modify', 'edit.tool_args'],
    min: 1,
    max: ASK_LIMITS.value,
    make: (c, n) => {
      const one = [{ ...field(1, 'x'.repeat(n)), type: 'STRING' }];
      return c.sub_type.toLowerCase() === 'modify'
        ? { ...c, modifiable: one }
        : { ...c, args: one };
    },
  },
  {
    what: 'characters in the draft',
    kinds: ['edit.content'],
    min: 1,
    max: ASK_LIMITS.draft,
    make: (c, n) => ({ ...c, draft: 'x'.repeat(n) }),
  },
  {
    what: 'characters in the statement',
    kinds: ['context.confirm'],
    min: 1,
    max: ASK_LIMITS.statement,
    make: (c, n) => ({ ...c, statement: 'x'.repeat(n) }),
  },
];

const strings = loadStrings('en');

/** The open card of an ask with `content`, as the relay hands it to every adapter. */
export function openCard(content: Json): Card {
  const parsed = parseAskContent(content);
  if (!parsed.ok) throw new Error(`not an ask: ${JSON.stringify(parsed.issues.slice(0, 3))}`);
  const m = protocolOf(parsed.content);
  const c = sampleCase({ status: 'pending' });
  c.doc.hitl = {
    ...c.doc.hitl,
    type: m.type,
    prompt: parsed.content.prompt,
    context: { ask: parsed.content },
    inline_actions: m.inline_actions,
    submit_url: 'https://svc.example/submit',
  };
  c.doc.inline_submit = true;
  return renderCase(c, { submit_token: 'tok', review_url: 'https://svc.example/r' }, strings, {
    detailsUrl: 'https://relay.example/r/k/sig',
  });
}

/** Whether `platform` draws `content` (of `kind`) so that it can be answered in the chat. */
export function isNative(platform: string, kind: AskKind, content: Json): boolean {
  const p = PLATFORMS.find((x) => x.name === platform)!;
  return p.controls(openCard(content)).has(NEEDS[kind]);
}

/** The largest size still drawn natively (binary search), or null when every size is. */
function largestNative(
  platform: string,
  kind: AskKind,
  d: (typeof DIMENSIONS)[number],
): number | null {
  const at = (n: number) => isNative(platform, kind, d.make(KINDS[kind].content, n));
  if (at(d.max)) return null;
  let [lo, hi] = [d.min, d.max]; // native at lo, not at hi
  if (!at(lo)) throw new Error(`${platform} ${kind}: not native with ${d.min} ${d.what}`);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (at(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** One cell: NATIVE with the sizes beyond which the card falls back, or Details and why. */
export function cell(platform: string, kind: AskKind): string {
  const reason = REASONS[`${platform} ${kind}`];
  if (!isNative(platform, kind, KINDS[kind].content)) {
    if (!reason) throw new Error(`${platform} ${kind} is not native and REASONS gives no reason`);
    return `Details: ${reason}`;
  }
  if (reason) throw new Error(`${platform} ${kind} is native: drop its reason from REASONS`);
  const limits = DIMENSIONS.filter((d) => d.kinds.includes(kind)).flatMap((d) => {
    const n = largestNative(platform, kind, d);
    return n === null ? [] : [`over ${n.toLocaleString('en')} ${d.what}: Details`];
  });
  return limits.length ? `NATIVE (${limits.join('; ')})` : 'NATIVE';
}

/** The whole table, as docs/asks.md holds it. */
export function nativeMatrix(): string {
  const header = ['kind', ...PLATFORMS.map((p) => p.label)];
  const rows = ALL_KINDS.map((k) => [`\`${k}\``, ...PLATFORMS.map((p) => cell(p.name, k))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The markers around the table in docs/asks.md. */
export const MARKERS = ['<!-- native-matrix: start -->', '<!-- native-matrix: end -->'] as const;

/** The table as docs/asks.md holds it now (between the markers). */
export function matrixInDocs(page: string): string {
  const [a, b] = MARKERS.map((m) => page.indexOf(m));
  if (a! < 0 || b! < a!) throw new Error(`docs/asks.md has no ${MARKERS[0]} … ${MARKERS[1]}`);
  return page.slice(a! + MARKERS[0].length, b).trim();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = 'docs/asks.md';
  const page = readFileSync(file, 'utf8');
  matrixInDocs(page); // the markers are there
  const [a, b] = MARKERS.map((m) => page.indexOf(m)) as [number, number];
  writeFileSync(
    file,
    `${page.slice(0, a + MARKERS[0].length)}\n${nativeMatrix()}\n${page.slice(b)}`,
  );
  console.log(`${file}: the NATIVE matrix rewritten from the renderers`);
}
