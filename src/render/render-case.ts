/** Builds the neutral Card of a case. Ending a case is re-rendering: same body, buttons replaced by an outcome line. */
import type { CaseDoc, CaseSecrets, StoredCase } from '../cases/types.ts';
import { inlineActions, isIrreversible } from '../protocol/actions.ts';
import type { HitlObject } from '../protocol/hitl.ts';
import { isTerminal, REVIEW_TYPES } from '../protocol/types.ts';
import type { ActionStyle, Card, CardAction } from './card.ts';
import { type Strings, t } from './templates.ts';

const MAX_LINES = 8;
const MAX_LINE = 200;
/** Context keys shown elsewhere on the card or not for people. */
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

function scalar(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (!Array.isArray(v)) return null;
  if (v.every((x) => ['string', 'number'].includes(typeof x))) return v.join(', ');
  // Lists of options or items: show their labels.
  const labels = v.map((x) => {
    const o = (typeof x === 'object' && x !== null ? x : {}) as Record<string, unknown>;
    return o.label ?? o.title ?? o.name;
  });
  return labels.every((l) => typeof l === 'string') ? labels.join('; ') : null;
}

/** Key facts from `context`: scalars only, form fields never (they may be sensitive). */
function contextLines(hitl: Pick<HitlObject, 'context'>): string[] {
  const ctx = (hitl.context ?? {}) as Record<string, unknown>;
  const lines: string[] = [];
  for (const [k, v] of Object.entries(ctx)) {
    if (HIDDEN_KEYS.has(k) || /token|secret|password/i.test(k)) continue;
    const s = scalar(v);
    if (s === null || s === '') continue;
    lines.push(shorten(`${k.replace(/_/g, ' ')}: ${s}`, MAX_LINE));
    if (lines.length === MAX_LINES) break;
  }
  return lines;
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

/** Renders `c` as a Card; `secrets` are the case's opened secrets (review_url carries the review token). */
export function renderCase(
  c: StoredCase,
  secrets: CaseSecrets,
  s: Strings,
  options: { round?: number; detailsUrl?: string } = {},
): Card {
  const hitl = c.doc.hitl;
  const final = isTerminal(c.status);
  const type = (REVIEW_TYPES as readonly string[]).includes(hitl.type) ? hitl.type : 'custom';
  const canTap = !final && !c.doc.inline_unavailable && !c.doc.next_id;
  const names = canTap ? inlineActions(hitl, secrets.submit_token !== null).actions : [];
  const actions: CardAction[] = names.map((action) => {
    const label = t(s, `action.${action}`);
    const a: CardAction = {
      action,
      label,
      style: STYLE[action] ?? 'secondary',
      payload: `hitl:${c.key}:${action}`,
    };
    if (isIrreversible(hitl, action))
      a.confirm = {
        title: t(s, 'confirm.title'),
        text: t(s, 'confirm.text', { label }),
        yes: t(s, 'confirm.yes', { label }),
        no: t(s, 'confirm.no'),
      };
    return a;
  });
  const warning = (hitl.context as Record<string, unknown> | undefined)?.warning;
  const hint = actions.some((a) => a.confirm)
    ? shorten(typeof warning === 'string' ? warning : t(s, 'hint_irreversible'), 300)
    : null;
  let status = statusLine(c, s);
  if (c.doc.next_id && options.round)
    status = `${status} · ${t(s, 'status.revised', { round: options.round + 1 })}`;
  if (c.doc.notice && !final) status = `${status}\n${c.doc.notice}`;
  const title =
    options.round && options.round > 1
      ? `${t(s, `title.${type}`)} · ${t(s, 'round', { round: options.round })}`
      : t(s, `title.${type}`);
  return {
    caseId: c.id,
    key: c.key,
    title: neutral(title),
    prompt: neutral(hitl.prompt),
    lines: contextLines(hitl).map(neutral),
    hint: final || hint === null ? null : neutral(hint),
    actions,
    link: { label: t(s, 'link'), url: options.detailsUrl ?? secrets.review_url },
    status: neutral(status),
    final,
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
