/**
 * Card -> Adaptive Card 1.4 JSON (pure). Universal Actions: one Action.Execute per action (verb and
 * data carry the `hitl:<key>:<action>` payload), with an Action.Submit fallback for Teams clients
 * that predate Action.Execute, plus Action.OpenUrl for Details. An ask's inputs come from ask.ts.
 * Size and text limits are checked here.
 */
import type { AdapterStrings } from '../../src/adapter.ts';
import { stringsOf, truncateCodePoints } from '../../src/adapter-kit.ts';
import type { Card, CardAction, CardOutcomeKind } from '../../src/render/card.ts';
import { type AskRetry, plainAskActions, type TeamsAskButton, teamsAsk } from './ask.ts';

/** Teams rejects messages over about 100 KB (card JSON included); stay well under it. */
export const TEAMS_MESSAGE_MAX_BYTES = 80 * 1024;
/** Adaptive Card schema version: the highest one Teams renders on every client. */
export const TEAMS_CARD_VERSION = '1.4';
/** A title longer than this wraps into a wall of bold text; cut it. */
export const TEAMS_TITLE_MAX_CHARS = 200;
/** One context line; longer lines are cut so that a single value cannot crowd out the rest. */
export const TEAMS_LINE_MAX_CHARS = 1000;
/** Context lines shown at most (the Details page has everything). */
export const TEAMS_MAX_LINES = 40;
/** The id of the TextBlock that carries the per-person notice in an invoke answer. */
export const TEAMS_NOTICE_BLOCK_ID = 'hitl-notice';
/** The data field that carries the payload in Action.Execute / Action.Submit. */
export const TEAMS_PAYLOAD_FIELD = 'hitl';

/** Adaptive Card JSON, loosely typed (it goes straight onto the wire). */
export type AdaptiveCardJson = Record<string, unknown> & {
  type: 'AdaptiveCard';
  body: Array<Record<string, unknown>>;
  actions: Array<Record<string, unknown>>;
};

/** Extra state for one rendering. */
export interface RenderOptions {
  /** A line for the person who tapped (shown in an invoke answer only). */
  notice?: string | null;
  /** The tap is being submitted: buttons hidden, status says so (in these words, or "Submitting…"). */
  submitting?: boolean | string;
  /** An ask's refused answer: the person's values shown again, each problem under its field. */
  askRetry?: AskRetry;
  /** The relay's LOCALE texts (default: English). */
  strings?: AdapterStrings | undefined;
}

/** Cuts `text` to at most `max` code points, ending with an ellipsis when it cut. */
export const truncateText = truncateCodePoints;

/**
 * Escapes service text for a TextBlock, which renders a Markdown subset (emphasis, links, lists)
 * and `{{DATE(...)}}` / `{{TIME(...)}}` functions. Only what that subset (plus HTML-ish `<`, `>`
 * and entities) makes special is escaped, because some mobile clients show stray backslashes;
 * `{{` is split with a zero-width space so that no function is ever evaluated.
 */
export function escapeTeamsText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\\*_[\]<>]/g, (c) => `\\${c}`)
    .replace(/&(?=#?\w+;)/g, '\\&')
    .replace(/\{(?=\{)/g, '{\u200B')
    .replace(/^(\s*)([-+])(?=\s)/gm, '$1\\$2')
    .replace(/^(\s*\d+)([.)])(?=\s|$)/gm, '$1\\$2');
}

/** Markdown paragraphs need a blank line; single newlines in service text stay line breaks. */
function paragraphs(text: string): string {
  return escapeTeamsText(text).replace(/\n/g, '\n\n');
}

function textBlock(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'TextBlock', text, wrap: true, ...extra };
}

const STYLE: Record<CardAction['style'], string | undefined> = {
  primary: 'positive',
  danger: 'destructive',
  secondary: undefined,
};

function executeAction({ action, data: extra, id }: TeamsAskButton): Record<string, unknown> {
  const style = STYLE[action.style];
  const data = { ...extra, [TEAMS_PAYLOAD_FIELD]: action.payload };
  const common = { title: action.label, data, ...(style ? { style } : {}) };
  return {
    type: 'Action.Execute',
    id,
    verb: action.payload,
    ...common,
    // Teams clients without Universal Actions fall back to Action.Submit (a message with `value`).
    fallback: { type: 'Action.Submit', ...common },
  };
}

interface Texts {
  title: string;
  prompt: string;
  lines: string[];
  hint: string | null;
  status: string;
  notice: string | null;
}

/** A final card's title sits in a Container of this style: green, red, blue, amber, grey. */
export const TEAMS_OUTCOME_STYLES: Record<CardOutcomeKind, string> = {
  approved: 'good',
  rejected: 'attention',
  answered: 'accent',
  expired: 'warning',
  cancelled: 'emphasis',
  ended_by_policy: 'emphasis',
};

/** The title, in a Container styled by the outcome once the card is final. */
function titleBlock(card: Card, title: string): Record<string, unknown> {
  const block = textBlock(escapeTeamsText(title), { weight: 'Bolder', size: 'Medium' });
  const o = card.final ? card.outcome : undefined;
  if (!o) return block;
  return { type: 'Container', style: TEAMS_OUTCOME_STYLES[o.kind], bleed: true, items: [block] };
}

const plainButton = (action: CardAction): TeamsAskButton => ({
  action,
  id: `hitl-${action.action}`,
});

function build(card: Card, t: Texts, options: RenderOptions, native = true): AdaptiveCardJson {
  const body: Array<Record<string, unknown>> = [titleBlock(card, t.title)];
  if (t.prompt) body.push(textBlock(paragraphs(t.prompt)));
  if (t.lines.length) {
    body.push({
      type: 'Container',
      spacing: 'Medium',
      items: t.lines.map((line) => textBlock(escapeTeamsText(line), { spacing: 'Small' })),
    });
  }
  if (t.hint)
    body.push(textBlock(escapeTeamsText(t.hint), { color: 'Warning', spacing: 'Medium' }));
  body.push(textBlock(escapeTeamsText(t.status), { isSubtle: true, spacing: 'Medium' }));
  // An ask's inputs go under the text; when Teams cannot draw them, only input-free buttons stay.
  const ask =
    card.ask && native ? teamsAsk(card, escapeTeamsText, options.askRetry, options.strings) : null;
  if (ask && !options.submitting) body.push(...ask.body);
  // The notice last, next to the buttons (after an ask's inputs, so a refusal is seen).
  if (t.notice) {
    body.push(textBlock(escapeTeamsText(t.notice), { id: TEAMS_NOTICE_BLOCK_ID, color: 'Accent' }));
  }
  const buttons = ask
    ? ask.buttons
    : (card.ask ? plainAskActions(card) : card.actions).map(plainButton);
  const actions: Array<Record<string, unknown>> = [];
  if (!card.final && !options.submitting) actions.push(...buttons.map(executeAction));
  if (card.link)
    actions.push({ type: 'Action.OpenUrl', title: card.link.label, url: card.link.url });
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: TEAMS_CARD_VERSION,
    msteams: { width: 'Full' },
    body,
    actions,
  };
}

/** UTF-8 size of the card as it goes on the wire. */
export function cardBytes(json: AdaptiveCardJson): number {
  return Buffer.byteLength(JSON.stringify(json), 'utf8');
}

/** Halves the longest piece of body text (or drops the last line when every piece is tiny). */
function halveLongest(t: Texts): void {
  const pieces: Array<{ text: string; set: (v: string) => void }> = [
    { text: t.prompt, set: (v) => (t.prompt = v) },
    ...t.lines.map((l, i) => ({ text: l, set: (v: string) => (t.lines[i] = v) })),
    { text: t.hint ?? '', set: (v) => (t.hint = v) },
    { text: t.status, set: (v) => (t.status = v) },
  ];
  const sized = pieces.map((p) => ({ ...p, length: Array.from(p.text).length }));
  sized.sort((a, b) => b.length - a.length);
  const longest = sized[0];
  if (!longest || longest.length <= 1) t.lines = t.lines.slice(0, -1);
  else longest.set(truncateText(longest.text, Math.ceil(longest.length / 2)));
}

/** Renders `card`; text is cut (never an action or payload) until the card fits TEAMS_MESSAGE_MAX_BYTES. */
export function renderTeamsCard(
  card: Card,
  options: RenderOptions = {},
  maxBytes = TEAMS_MESSAGE_MAX_BYTES,
): AdaptiveCardJson {
  const t: Texts = {
    title: truncateText(card.title, TEAMS_TITLE_MAX_CHARS),
    prompt: card.prompt,
    lines: card.lines.slice(0, TEAMS_MAX_LINES).map((l) => truncateText(l, TEAMS_LINE_MAX_CHARS)),
    hint: card.hint,
    status: options.submitting
      ? `${card.status} · ${typeof options.submitting === 'string' ? options.submitting : stringsOf(options).submitting}`
      : card.status,
    notice: options.notice ? truncateText(options.notice, 400) : null,
  };
  // An ask whose inputs alone do not fit keeps the review page (Details) instead.
  const native =
    !card.ask ||
    cardBytes(build(card, { ...t, prompt: '', lines: [], hint: null }, options)) <= maxBytes;
  let json = build(card, t, options, native);
  // Halve the longest piece of body text until the card fits; escaping can only grow text by 2x.
  for (let round = 0; round < 64 && cardBytes(json) > maxBytes; round++) {
    halveLongest(t);
    json = build(card, t, options, native);
  }
  return json;
}
