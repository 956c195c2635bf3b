/**
 * Issues a signed receipt when a case ends and keeps it, append-only: the first receipt stored for
 * a case is the receipt (a replica that races loses and reads the winner's). A case whose receipt
 * was not issued (the process died between the final status and the receipt) gets it on the first
 * request for it.
 */

import { askContentOf } from '../asks/content.ts';
import { sensitivePaths } from '../asks/sensitive.ts';
import { argumentsSent, toolCallOf } from '../asks/tool-call.ts';
import type { Logger } from '../log.ts';
import { SUBMITTED_BY_CLAIM } from '../protocol/claims.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Card } from '../render/card.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';
import type { ReceiptSigner } from './keys.ts';
import {
  historyChain,
  RECEIPT_FORMAT,
  type Receipt,
  type ReceiptBody,
  type ReceiptHistoryEntry,
  sha256Of,
} from './receipt.ts';

/** What the issuer needs. */
export interface ReceiptIssuerDeps {
  store: Pick<Store, 'getCase' | 'listHistory' | 'kv'>;
  /** The card of a case as every platform was sent it. */
  cardOf(c: StoredCase): Promise<Card>;
  /** The actions the case's card offered inline. */
  actionsOffered(c: StoredCase): string[];
  signer: ReceiptSigner;
  instanceId: string;
  now: () => number;
  log: Logger;
  /** How long a receipt is kept (0: for ever). */
  keepMs?: number;
}

/** Issues and reads receipts. */
export interface ReceiptIssuer {
  /** The receipt of a case: the stored one, else a new one when the case has ended; undefined while open. */
  /** `known`: the case as it just became final (not read again). */
  receiptOf(id: string, known?: StoredCase): Promise<Receipt | undefined>;
}

const keyOf = (id: string) => `receipt:${id}`;

/** History rows as receipts cover them (and as the case view shows them). */
export function receiptHistory(
  rows: ReadonlyArray<{ at: number; kind: string; detail: Record<string, unknown> }>,
): ReceiptHistoryEntry[] {
  return rows.map((h) => ({ at: new Date(h.at).toISOString(), kind: h.kind, detail: h.detail }));
}

/** The case as the receipt names it; `final` is the detail of the history row that ended it. */
function caseSection(
  c: StoredCase,
  final: Record<string, unknown> | undefined,
): ReceiptBody['case'] {
  return {
    id: c.id,
    case_id: c.case_id,
    service: c.origin,
    target: c.target,
    type: c.doc.hitl.type,
    prompt: c.doc.hitl.prompt,
    status: c.status,
    status_at: c.doc.status_at ?? null,
    // An end the relay concluded on its own (a local expiry) is not the service's word.
    confirmed: !c.doc.unconfirmed && final?.source !== 'local_expiry',
  };
}

/** Who acted on the case: taps, refused taps and submits, from its history. */
function actorsOf(entries: ReceiptHistoryEntry[]): ReceiptBody['actors'] {
  return entries
    .filter((e) => e.kind === 'tap' || e.kind === 'submit' || e.kind === 'tap_refused')
    .map(({ at, kind, detail: x }) => ({
      at,
      platform: String(x.platform ?? ''),
      user_id: String(x.user ?? ''),
      name: typeof x.name === 'string' ? x.name : null,
      kind: kind === 'submit' ? `submit:${String(x.outcome ?? '')}` : kind,
    }));
}

/**
 * The answer as a receipt keeps it. An ask's answer is a secret of the ask (a typed password, a
 * ticket): the receipt commits to it by a digest (sha256 of its canonical JSON, so whoever holds
 * the answer can show it is the one decided) and names the sensitive fields given, never a value.
 */
function resultOf(c: StoredCase): unknown {
  const r = c.doc.result;
  if (!r) return null;
  const content = askContentOf(c.doc.hitl.context);
  if (!content) return r;
  const data = (r.data ?? {}) as Record<string, unknown>;
  const sensitive = sensitivePaths(content, data);
  return { action: r.action, data_sha256: sha256Of(data), ...(sensitive.length && { sensitive }) };
}

/** Whether the case's votes carry its decision (see ReceiptBody.policy.met). */
function policyMet(c: StoredCase): boolean | null {
  const p = c.doc.policy;
  const action = c.doc.result?.action;
  if (!p || c.status !== 'completed' || !action) return null;
  const votes = (c.doc.votes ?? []).filter((v) => v.action === action).length;
  // A veto (any other action, by one eligible person) decides with one vote.
  const needed = p.actions.includes(action) || !p.veto ? p.required : 1;
  return votes >= needed;
}

/** What was decided, by whom, and under which policy. */
function decisionOf(c: StoredCase): Pick<ReceiptBody, 'decision' | 'policy'> {
  return {
    decision: {
      result: resultOf(c),
      submitted_by: c.doc.submitted_by ?? null,
      ...(c.doc.submitted_by ? { submitted_by_is: SUBMITTED_BY_CLAIM } : {}),
      responded_by: c.doc.responded_by ?? null,
      votes: (c.doc.votes ?? []).map((v) => ({ ...v, at: new Date(v.at).toISOString() })),
    },
    policy: c.doc.policy
      ? {
          name: c.doc.policy.name,
          version: c.doc.policy.version,
          required: c.doc.policy.required,
          met: policyMet(c),
        }
      : null,
  };
}

/** A held tool call's section: the SHA-256 of the arguments this decision sends (asks/tool-call.ts). */
function toolCallSection(c: StoredCase): Pick<ReceiptBody, 'tool_call'> {
  const tc = toolCallOf(c.doc.hitl.context);
  if (!tc) return {};
  const sent = c.status === 'completed' ? argumentsSent(tc, c.doc.result?.data) : null;
  return {
    tool_call: {
      upstream: tc.upstream,
      tool: tc.tool,
      client: tc.client,
      arguments_sha256: sent ? sha256Of(sent) : null,
    },
  };
}

/** The unsigned receipt of a final case. */
async function receiptBody(d: ReceiptIssuerDeps, c: StoredCase): Promise<ReceiptBody> {
  const entries = receiptHistory(await d.store.listHistory(c.id));
  const { link: _link, ...card } = await d.cardOf(c);
  const final = [...entries]
    .reverse()
    .find((e) => e.kind === 'status' && e.detail.to === c.status)?.detail;
  return {
    format: RECEIPT_FORMAT,
    issued_at: new Date(d.now()).toISOString(),
    instance: d.instanceId,
    case: caseSection(c, final),
    content_sha256: sha256Of(c.doc.hitl),
    // Without the Details link: its base URL is deployment detail, not what was decided on.
    card_sha256: sha256Of(card),
    actions: d.actionsOffered(c),
    actors: actorsOf(entries),
    ...decisionOf(c),
    ...toolCallSection(c),
    history: { count: entries.length, chain_sha256: historyChain(entries), entries },
  };
}

/** Creates the issuer. */
export function createReceiptIssuer(d: ReceiptIssuerDeps): ReceiptIssuer {
  return {
    async receiptOf(id, known) {
      // A case that just became final has no receipt yet: issued from the copy in hand (a receipt
      // another replica stored first wins the setIfAbsent below).
      if (!known) {
        const stored = await d.store.kv.get(keyOf(id));
        if (stored) return JSON.parse(stored) as Receipt;
      }
      const c = known ?? (await d.store.getCase(id));
      if (!c || !isTerminal(c.status)) return undefined;
      const receipt = d.signer.sign(await receiptBody(d, c));
      const keep = d.keepMs ? d.keepMs : undefined;
      if (await d.store.kv.setIfAbsent(keyOf(id), JSON.stringify(receipt), keep)) {
        d.log.info(
          { case: id, status: c.status, key_id: receipt.signature.key_id },
          'receipt issued',
        );
        return receipt;
      }
      const winner = await d.store.kv.get(keyOf(id));
      return winner ? (JSON.parse(winner) as Receipt) : receipt;
    },
  };
}
