/** Builds the neutral Card of a case. Ending a case is re-rendering: same body, buttons replaced by an outcome line. */
import { buttonIrreversible } from '../asks/answer.ts';
import { type AskContent, askContentOf, kindOf } from '../asks/content.ts';
import { inlineActions, isIrreversible } from '../protocol/actions.ts';
import type { HitlObject } from '../protocol/hitl.ts';
import { isTerminal, REVIEW_TYPES } from '../protocol/types.ts';
import { askFactRows } from '../render/ask-facts.ts';
import type { ActionStyle, Card, CardAction, CardField, CardTable } from '../render/card.ts';
import { formSummary } from '../render/form-summary.ts';
import { type Strings, t } from '../render/templates.ts';
import type { CaseDoc, CaseSecrets, StoredCase } from '../store/types.ts';
import { answerLine, askAnswerFields, askAnswerLines } from './card-answer.ts';
import { agentAccess, caseNotes, interpreted } from './card-notes.ts';
import { cardOutcome } from './card-outcome.ts';
import { humanKey, objectSummary, SECRET_KEY, scalar, shorten } from './card-text.ts';
import { openLinkOf } from './open-link.ts';

const MAX_LINES = 8;
const MAX_LINE = 200;
/**
 * Context keys shown elsewhere on the card (the form as a summary, an ask by its platform's own
 * widgets and, once final, by its answer) or not for people.
 */
const HIDDEN_KEYS = new Set(['form', 'irreversible', 'warning', 'ask', 'open_link']);

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

/** An ask approval's own label for a plain action (its choice "Send it", not "Approve"). */
function askLabel(ask: AskContent | undefined, action: string): string | undefined {
  if (ask?.type !== 'approval') return undefined;
  return ask.choices.find((x) => x.key === action)?.label;
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
    const label = askLabel(ask, action) ?? t(s, `action.${action}`);
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
function statusText(
  c: StoredCase,
  s: Strings,
  round: number | undefined,
  final: boolean,
  isAsk: boolean,
): string {
  let status = statusLine(c, s);
  if (c.doc.next_id && round)
    status = `${status} · ${t(s, 'status.revised', { round: round + 1 })}`;
  if (c.doc.notice && !final) status = `${status}\n${c.doc.notice}`;
  for (const note of caseNotes(c, s)) status = `${status}\n${note}`;
  const w = c.doc.watch;
  // A case the relay cannot see is said so on the card, not left to look merely "waiting".
  if (w && w.state !== 'ok' && !final)
    status = `${status}\n${t(s, `watch.${w.state}`, { error: shorten(w.last_error ?? '', 120) })}`;
  // An ask's answer is in the card's lines; a service's case says it under the status.
  const answer = isAsk ? null : answerLine(c, s);
  if (answer) status = `${status}\n${answer}`;
  return status;
}

/** "Approval needed", with its round after the first. */
function cardTitle(type: string, round: number | undefined, s: Strings): string {
  return round && round > 1
    ? `${t(s, `title.${type}`)} · ${t(s, 'round', { round })}`
    : t(s, `title.${type}`);
}

/** A dropped review_url leaves no link to the service's page (the relay's own link says why). */
function detailsLink(
  c: StoredCase,
  secrets: CaseSecrets,
  detailsUrl: string | undefined,
  s: Strings,
): Card['link'] {
  if (!detailsUrl && c.doc.review_url_retired_at) return null;
  return { label: t(s, 'link'), url: detailsUrl ?? secrets.review_url };
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
  const canTap =
    interpreted(c) &&
    !agentAccess(c) &&
    !final &&
    !c.doc.inline_unavailable &&
    !c.doc.next_id &&
    !c.doc.submit_unknown;
  const names = canTap
    ? inlineActions(hitl, secrets.submit_token !== null).actions.filter(
        (a) => !c.doc.inline_refused?.includes(a),
      )
    : [];
  // The ask's content is read on every card: the open one draws it, the final one says its answer.
  const content = askContentOf(hitl.context);
  const ask = canTap && secrets.submit_token ? content : undefined;
  const actions = cardActions(c, names, ask, s);
  const hint = hintOf(hitl, actions, s);
  const outcome = cardOutcome(c, content, s);
  const title = cardTitle(type, options.round, s);
  const openLink = final ? undefined : openLinkOf(hitl.context);
  const table = tableOf(ask ? askFactRows(ask) : content ? askAnswerFields(c, content, s) : [], s);
  return {
    ...(ask ? { ask: { kind: kindOf(ask), content: ask } } : {}),
    caseId: c.id,
    key: c.key,
    title: neutral(outcome ? `${outcome.label} · ${title}` : title),
    prompt: neutral(hitl.prompt),
    lines: [
      ...policyLines(c, s, options.identityOf),
      ...formLines(hitl, s),
      ...contextLines(hitl, s),
      ...(content ? askAnswerLines(c, content, s) : []),
    ].map(neutral),
    hint: final || hint === null ? null : neutral(hint),
    actions,
    link: detailsLink(c, secrets, options.detailsUrl, s),
    ...(openLink ? { openLink } : {}),
    status: neutral(statusText(c, s, options.round, final, content !== undefined)),
    final,
    state: c.status,
    ...(outcome ? { outcome: { kind: outcome.kind, label: neutral(outcome.label) } } : {}),
    ...(table ? { table } : {}),
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

/** The rows as a card's table under the language's header, bidi controls removed; none when empty. */
function tableOf(rows: CardField[], s: Strings): CardTable | null {
  if (!rows.length) return null;
  return {
    header: [neutral(t(s, 'table.field')), neutral(t(s, 'table.value'))],
    rows: rows.map((f) => ({
      label: neutral(f.label),
      value: neutral(f.value),
      line: neutral(f.line),
    })),
  };
}
