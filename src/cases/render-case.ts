/** Builds the neutral Card of a case. Ending a case is re-rendering: same body, buttons replaced by an outcome line. */
import { buttonIrreversible } from '../asks/answer.ts';
import { type AskContent, askContentOf, kindOf } from '../asks/content.ts';
import { inlineActions, isIrreversible } from '../protocol/actions.ts';
import type { HitlObject } from '../protocol/hitl.ts';
import { isTerminal, REVIEW_TYPES } from '../protocol/types.ts';
import type { ActionStyle, Card, CardAction } from '../render/card.ts';
import { formFields, formSummary } from '../render/form-summary.ts';
import { type Strings, t } from '../render/templates.ts';
import type { CaseDoc, CaseSecrets, StoredCase } from '../store/types.ts';

const MAX_LINES = 8;
const MAX_LINE = 200;
/** Context keys shown elsewhere on the card (the form as a summary) or not for people. */
const HIDDEN_KEYS = new Set(['form', 'irreversible', 'warning']);

const STYLE: Readonly<Record<string, ActionStyle>> = {
  approve: 'primary',
  confirm: 'primary',
  retry: 'primary',
  reject: 'danger',
  abort: 'danger',
};

/** A time as people read it in a chat: "2026-11-30 10:15 UTC". */
export function formatTime(iso: string | number | undefined): string {
  if (iso === undefined) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function shorten(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = Array.from(flat)
    .slice(0, max - 1)
    .join('');
  return `${cut}…`;
}

/** A value as a short text: scalars, lists of scalars or of labelled items, objects by their title. */
function scalar(v: unknown, s: Strings): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return t(s, v ? 'context.yes' : 'context.no');
  if (Array.isArray(v)) {
    if (v.every((x) => ['string', 'number'].includes(typeof x))) return v.join(', ');
    // Lists of options or items: show their labels.
    const labels = v.map((x) => titleOf(x));
    return labels.every((l) => l !== undefined) ? labels.join('; ') : null;
  }
  return titleOf(v) ?? null;
}

const SECRET_KEY = /token|secret|password/i;

/**
 * A one-line summary of an object value (e.g. an escalation's `error` or `current_state`) that has
 * no title: its scalar fields as "Key value" pairs, nested objects and lists of objects left out,
 * bounded. Plain text: each adapter escapes for its own markup.
 */
function objectSummary(v: unknown, s: Strings): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (SECRET_KEY.test(k)) continue;
    const text = typeof x === 'object' && x !== null && !Array.isArray(x) ? null : scalar(x, s);
    if (text === null || text === '') continue;
    parts.push(`${humanKey(k)} ${shorten(text, 120)}`);
    if (parts.length === 6) break;
  }
  return parts.length ? parts.join('; ') : null;
}

/** The human name of an object (an option, an artifact, an error), when it has one. */
function titleOf(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  for (const k of ['label', 'title', 'name', 'summary', 'message', 'description'])
    if (typeof o[k] === 'string' && o[k]) return o[k] as string;
  return undefined;
}

/** Words that read better in capitals. */
const UPPER = new Set(['id', 'url', 'sha', 'api', 'eur', 'usd', 'gbp', 'ui', 'ip', 'sla']);

/** A context key as a label: "total_matches" -> "Total matches", "commit_sha" -> "Commit SHA". */
export function humanKey(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[_\s.-]+/)
    .filter(Boolean)
    .map((w) => (UPPER.has(w.toLowerCase()) ? w.toUpperCase() : w.toLowerCase()));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Key facts from `context`, for people: a sentence from templates/ for known keys ("Several may be
 * selected", "4 options"), else "Label: value"; form fields never (they may be sensitive).
 */
function contextLines(hitl: Pick<HitlObject, 'context'>, s: Strings): string[] {
  const ctx = (hitl.context ?? {}) as Record<string, unknown>;
  const lines: string[] = [];
  for (const [k, v] of Object.entries(ctx)) {
    if (HIDDEN_KEYS.has(k) || SECRET_KEY.test(k)) continue;
    // A first round says nothing; later rounds are in the title.
    if ((k === 'round' || k === 'review_round') && (v === 1 || v === '1')) continue;
    const value = scalar(v, s) ?? objectSummary(v, s);
    if (value === null || value === '') continue;
    const known = `context.${k}.${typeof v === 'boolean' ? String(v) : 'text'}`;
    const line =
      t(s, known) !== known
        ? t(s, known, { value })
        : t(s, 'context.line', { label: humanKey(k), value });
    lines.push(shorten(line, MAX_LINE));
    if (lines.length === MAX_LINES) break;
  }
  return lines;
}

/** At most this many step titles in a form's line. */
const MAX_STEP_TITLES = 6;

/**
 * What the service's form asks, without its fields: "Form: 6 fields, 5 required", or "3-step form:
 * Personal Information → Work Preferences → Review & Submit · 10 fields, 7 required".
 */
function formLines(hitl: Pick<HitlObject, 'context'>, s: Strings): string[] {
  const form = formSummary((hitl.context as Record<string, unknown> | undefined)?.form);
  if (!form) return [];
  const count = { fields: form.fields, one: form.fields === 1, required: form.required || '' };
  if (form.steps.length < 2) return form.fields ? [t(s, 'form.fields', count)] : [];
  const titles = form.steps
    .slice(0, MAX_STEP_TITLES)
    .map((title, i) => shorten(title || t(s, 'form.step', { n: i + 1 }), 40));
  const more = form.steps.length - titles.length;
  const view = { ...count, steps: form.steps.length, titles: '', more: more || '' };
  // The titles give way to the counts when the line is long.
  const room = MAX_LINE - t(s, 'form.steps', view).length;
  view.titles = shorten(titles.join(' → '), Math.max(room, 1));
  return [shorten(t(s, 'form.steps', view), MAX_LINE)];
}

/** At most this many answer fields on a final card, each value at most this long. */
const MAX_ANSWER_FIELDS = 5;
const MAX_ANSWER_VALUE = 80;

/**
 * What was selected or entered, for the final card: option labels for a selection; for an input,
 * the values of the form's declared fields that are not sensitive (a sensitive one shows as
 * hidden). Data the form does not declare is not shown: its sensitivity is unknown.
 */
export function answerLine(c: StoredCase, s: Strings): string | null {
  const result = c.doc.result;
  if (c.status !== 'completed' || !result?.data) return null;
  const data = result.data as Record<string, unknown>;
  const ctx = (c.doc.hitl.context ?? {}) as Record<string, unknown>;
  const selected = data.selected ?? data.selection;
  if (Array.isArray(selected) && selected.length) {
    const options = Array.isArray(ctx.options) ? ctx.options : [];
    const names = selected.slice(0, MAX_ANSWER_FIELDS).map((id) => {
      const o = options.find(
        (x) => typeof x === 'object' && x !== null && (x as { id?: unknown }).id === id,
      );
      return shorten(titleOf(o) ?? String(id), MAX_ANSWER_VALUE);
    });
    const more = selected.length - names.length;
    return shorten(
      t(s, 'answer.selected', { items: names.join('; '), more: more > 0 ? more : '' }),
      MAX_LINE * 2,
    );
  }
  const parts: string[] = [];
  let hidden = 0;
  for (const f of formFields(ctx.form)) {
    const key = typeof f.key === 'string' ? f.key : typeof f.name === 'string' ? f.name : '';
    if (!key || !(key in data)) continue;
    // A sensitive field is counted, never named: its label may say too much already.
    if (f.sensitive === true || /token|secret|password/i.test(key)) {
      hidden++;
      continue;
    }
    const value = scalar(data[key], s);
    if (value === null || value === '' || parts.length === MAX_ANSWER_FIELDS) continue;
    const label = typeof f.label === 'string' ? f.label : humanKey(key);
    parts.push(`${shorten(label, 40)}: ${shorten(value, MAX_ANSWER_VALUE)}`);
  }
  if (!parts.length && !hidden) return null;
  return shorten(
    t(s, 'answer.entered', { fields: parts.join('; '), hidden: hidden || '' }),
    MAX_LINE * 2,
  );
}

function progressText(doc: CaseDoc, s: Strings): string {
  const p = doc.progress;
  if (!p) return '';
  const parts: string[] = [];
  if (p.current_step && p.total_steps)
    parts.push(t(s, 'progress.steps', { current: p.current_step, total: p.total_steps }));
  if (p.completed_fields !== undefined && p.total_fields)
    parts.push(t(s, 'progress.fields', { completed: p.completed_fields, total: p.total_fields }));
  return parts.join(', ');
}

function statusLine(c: StoredCase, s: Strings): string {
  const d = c.doc;
  const expires = formatTime(d.hitl.expires_at);
  const at = formatTime(d.status_at ?? c.updated_at);
  switch (c.status) {
    case 'completed': {
      const action = d.result?.action ?? '';
      const done =
        t(s, `done.${action}`) === `done.${action}`
          ? t(s, 'done.other', { action })
          : t(s, `done.${action}`);
      const who =
        d.submitted_by?.display_name ??
        d.submitted_by?.platform_user_id ??
        d.responded_by?.name ??
        '';
      return t(s, 'status.completed', { done, who, at });
    }
    case 'expired':
      if (d.unconfirmed) return t(s, 'status.expired_unconfirmed', { at });
      return t(s, 'status.expired', {
        at,
        default_action: d.default_action ?? d.hitl.default_action ?? '',
      });
    case 'cancelled':
      return t(s, 'status.cancelled', { at, reason: d.reason ? shorten(d.reason, 200) : '' });
    case 'in_progress':
      return t(s, 'status.in_progress', { progress: progressText(d, s), expires });
    default:
      return t(s, `status.${c.status}`, { expires });
  }
}

/**
 * The tally of an approval policy ("1 of 2 approvals: Ann (slack) · may still approve: bob@…"),
 * first among the lines. Who may still approve is said when the policy names its approvers: those
 * whose person has not voted and who did not ask for it.
 */
function policyLines(
  c: StoredCase,
  s: Strings,
  identityOf?: (account: string) => string,
): string[] {
  const p = c.doc.policy;
  if (!p) return [];
  const votes = c.doc.votes ?? [];
  const yes = votes.filter((v) => p.actions.includes(v.action));
  const names = yes.map((v) => `${shorten(v.name ?? v.user, 40)} (${v.platform})`).join(', ');
  const person = (a: string) => (identityOf ? identityOf(a) : a);
  const voted = new Set(votes.flatMap((v) => [v.identity, `${v.platform}:${v.user}`]));
  const waiting =
    p.approvers && !isTerminal(c.status)
      ? p.approvers
          .filter(
            (a) =>
              !voted.has(a) &&
              !voted.has(person(a)) &&
              (p.requester_may_approve || !c.doc.requested_by || person(a) !== c.doc.requested_by),
          )
          .slice(0, 10)
          .map((a) => shorten(a, 60))
          .join(', ')
      : '';
  const view = { tally: yes.length, required: p.required, names, waiting };
  return [shorten(t(s, 'policy.tally', view), 400)];
}

/** The buttons: each inline action, with a confirm dialog where it cannot be undone. */
function cardActions(
  c: StoredCase,
  names: string[],
  ask: AskContent | undefined,
  s: Strings,
): CardAction[] {
  // An ask says itself which choices cannot be undone; a service's case says it in its context.
  const irreversible = (action: string) =>
    ask ? buttonIrreversible(ask, action) : isIrreversible(c.doc.hitl, action);
  return names.map((action) => {
    const label = t(s, `action.${action}`);
    const a: CardAction = {
      action,
      label,
      style: STYLE[action] ?? 'secondary',
      payload: `hitl:${c.key}:${action}`,
    };
    if (irreversible(action))
      a.confirm = {
        title: t(s, 'confirm.title'),
        text: t(s, 'confirm.text', { label }),
        yes: t(s, 'confirm.yes', { label }),
        no: t(s, 'confirm.no'),
      };
    return a;
  });
}

/** The warning beside the actions that cannot be undone (an escalation's Abort, not its Retry). */
function hintOf(hitl: StoredCase['doc']['hitl'], actions: CardAction[], s: Strings): string | null {
  const warning = (hitl.context as Record<string, unknown> | undefined)?.warning;
  const irreversibleLabels = actions.filter((a) => a.confirm).map((a) => a.label);
  if (!irreversibleLabels.length) return null;
  return shorten(
    typeof warning === 'string'
      ? warning
      : t(s, 'hint_irreversible', { labels: irreversibleLabels.join(', ') }),
    300,
  );
}

/** The status line with what goes under it: a later round, a notice, an unseen case, the answer. */
function statusText(c: StoredCase, s: Strings, round: number | undefined, final: boolean): string {
  let status = statusLine(c, s);
  if (c.doc.next_id && round)
    status = `${status} · ${t(s, 'status.revised', { round: round + 1 })}`;
  if (c.doc.notice && !final) status = `${status}\n${c.doc.notice}`;
  const w = c.doc.watch;
  // A case the relay cannot see is said so on the card, not left to look merely "waiting".
  if (w && w.state !== 'ok' && !final)
    status = `${status}\n${t(s, `watch.${w.state}`, { error: shorten(w.last_error ?? '', 120) })}`;
  const answer = answerLine(c, s);
  if (answer) status = `${status}\n${answer}`;
  return status;
}

/** "Approval needed", with its round after the first. */
function cardTitle(type: string, round: number | undefined, s: Strings): string {
  return round && round > 1
    ? `${t(s, `title.${type}`)} · ${t(s, 'round', { round })}`
    : t(s, `title.${type}`);
}

/** Renders `c` as a Card; `secrets` are the case's opened secrets (review_url carries the review token). */
export function renderCase(
  c: StoredCase,
  secrets: CaseSecrets,
  s: Strings,
  options: {
    round?: number;
    detailsUrl?: string;
    /** The person of a `platform:user` account (RELAY_CONFIG `identities`). */
    identityOf?: (account: string) => string;
  } = {},
): Card {
  const hitl = c.doc.hitl;
  const final = isTerminal(c.status);
  const type = (REVIEW_TYPES as readonly string[]).includes(hitl.type) ? hitl.type : 'custom';
  const canTap = !final && !c.doc.inline_unavailable && !c.doc.next_id && !c.doc.submit_unknown;
  const names = canTap
    ? inlineActions(hitl, secrets.submit_token !== null).actions.filter(
        (a) => !c.doc.inline_refused?.includes(a),
      )
    : [];
  const ask = canTap && secrets.submit_token ? askContentOf(hitl.context) : undefined;
  const actions = cardActions(c, names, ask, s);
  const hint = hintOf(hitl, actions, s);
  return {
    ...(ask ? { ask: { kind: kindOf(ask), content: ask } } : {}),
    caseId: c.id,
    key: c.key,
    title: neutral(cardTitle(type, options.round, s)),
    prompt: neutral(hitl.prompt),
    lines: [
      ...policyLines(c, s, options.identityOf),
      ...formLines(hitl, s),
      ...contextLines(hitl, s),
    ].map(neutral),
    hint: final || hint === null ? null : neutral(hint),
    actions,
    link: { label: t(s, 'link'), url: options.detailsUrl ?? secrets.review_url },
    status: neutral(statusText(c, s, options.round, final)),
    final,
    state: c.status,
    type,
  };
}

/**
 * Bidirectional controls (U+202A-U+202E, U+2066-U+2069, LRM/RLM/ALM) let service text reorder
 * what a person reads ("txt.exe" shown as "exe.txt"): they are removed from every card, so no
 * platform shows them.
 */
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
export function neutral(text: string): string {
  return text.replace(BIDI, '');
}
