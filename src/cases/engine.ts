/** The engine: a case's lifecycle from intake to its final card. */
import { createHmac, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Dispatcher } from 'undici';
import type { PlatformAdapter } from '../adapter.ts';
import type { RelayConfig } from '../config/config.ts';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import type { Logger } from '../log.ts';
import { resolvedUrlRefusal, urlRefusal } from '../net/url-policy.ts';
import { deliveriesFor, NOTIFY_QUEUED_EVENT } from '../notify/deliveries.ts';
import { type CasePolicyInput, resolveCasePolicy } from '../policy/case-policy.ts';
import { caseEscalation } from '../policy/escalation.ts';
import { type CasePolicy, casePolicy, identityOf } from '../policy/policy.ts';
import type { HitlObject } from '../protocol/hitl.ts';
import { canTransition } from '../protocol/state.ts';
import type { StatusUpdate } from '../protocol/status.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Card } from '../render/card.ts';
import { renderCase } from '../render/render-case.ts';
import { loadStrings, type Strings } from '../render/templates.ts';
import { jsonLimitIssue } from '../server/json-limits.ts';
import { CardDelivery } from './card-delivery.ts';
import type { Sealer } from './sealer.ts';
import type { StepWrites, Store } from './store.ts';
import type { CaseDoc, CaseSecrets, HistoryEntry, StoredCase, StoredMessage } from './types.ts';

/**
 * Writes a step carries to the next case change (a tap's submit row and its claim release):
 * `done` is set once a change committed them, else the caller writes them on their own.
 */
export interface CarriedWrites extends StepWrites {
  done?: boolean;
}

/** How a change is made: from the copy in hand, and with which writes in the same commit. */
export interface MutateOptions {
  /**
   * The case as the caller holds it (just read or just written): the change starts from it
   * instead of a read; a copy that is no longer current only costs one retry from a fresh read.
   */
  known?: StoredCase | undefined;
  /** Writes that go in the same commit as the change. */
  carry?: CarriedWrites | undefined;
}

/** What the engine needs. */
export interface EngineOptions {
  store: Store;
  sealer: Sealer;
  adapters: ReadonlyMap<string, PlatformAdapter>;
  config: RelayConfig;
  log: Logger;
  dispatcher: Dispatcher;
  /** Connections for submits only (defaults to `dispatcher`). */
  submitDispatcher?: Dispatcher;
  /** Names this process in claims and leases. */
  instanceId: string;
  now?: () => number;
}

/** Input to ingest(): a validated hitl object and where to send it. */
export interface IngestInput {
  target: string;
  hitl: HitlObject;
  message?: string | undefined;
  warnings?: string[];
  notify_url?: string | undefined;
  notify_on?: 'final' | 'all' | undefined;
  labels?: Record<string, string> | undefined;
  /** Credentials for the service's watch endpoints (sealed; sent only to the case's origin). */
  service_headers?: Record<string, string> | undefined;
  /** Who asked: an identity or `platform:user` (approval policies keep them from approving). */
  requested_by?: string | undefined;
  /** A policy for this case (a name or fields over the configured one), within what the config allows. */
  policy?: CasePolicyInput | undefined;
}

const URL_FIELDS = ['review_url', 'poll_url', 'submit_url', 'events_url'] as const;

/** The signature part of a Details link. */
export function linkSignature(key: string, caseKey: string): string {
  return createHmac('sha256', key).update(`details:${caseKey}`).digest('base64url').slice(0, 22);
}

/** A short random id. */
export function randomId(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** The engine. Platform adapters, the HTTP API and the watcher all go through it. */
export class Engine {
  readonly store: Store;
  readonly sealer: Sealer;
  readonly adapters: ReadonlyMap<string, PlatformAdapter>;
  readonly config: RelayConfig;
  readonly log: Logger;
  readonly dispatcher: Dispatcher;
  readonly submitDispatcher: Dispatcher;
  readonly instanceId: string;
  readonly now: () => number;
  readonly strings: Strings;
  /** Emits `change:<id>` after every stored change of a case (for /wait and notify). */
  readonly events = new EventEmitter();
  private linkBase: string | undefined;
  private linkKey: string | undefined;
  /** Posts and edits the cards of cases. */
  readonly cards: CardDelivery;

  constructor(o: EngineOptions) {
    this.store = o.store;
    this.sealer = o.sealer;
    this.adapters = o.adapters;
    this.config = o.config;
    this.log = o.log;
    this.dispatcher = o.dispatcher;
    this.submitDispatcher = o.submitDispatcher ?? o.dispatcher;
    this.instanceId = o.instanceId;
    this.now = o.now ?? Date.now;
    this.strings = loadStrings(o.config.locale);
    this.events.setMaxListeners(0);
    this.cards = new CardDelivery(this);
  }

  /** Expands a target (or route:<name>) into concrete targets, or explains why it cannot. */
  resolveTargets(target: string): string[] {
    if (target.startsWith('route:')) {
      const route = this.config.routes[target.slice(6)];
      if (!route)
        throw new ValidationError('unknown_target', 'unknown route', [
          {
            path: 'target',
            message: `route "${target.slice(6)}" is not configured: ${Object.keys(this.config.routes).length ? `use one of ${Object.keys(this.config.routes).join(', ')}, or ` : ''}add it under "routes" in the RELAY_CONFIG file`,
          },
        ]);
      return route.targets.flatMap((t) => this.resolveTargets(t));
    }
    const i = target.indexOf(':');
    const platform = target.slice(0, i);
    if (i < 1 || i === target.length - 1)
      throw new ValidationError('unknown_target', 'invalid target', [
        { path: 'target', message: 'must look like "platform:address" or "route:name"' },
      ]);
    if (!this.adapters.has(platform))
      throw new ValidationError('unknown_target', 'platform not enabled', [
        {
          path: 'target',
          message: `platform "${platform}" is not enabled: use one of ${[...this.adapters.keys()].join(', ') || '(none)'}, or set that platform's credentials on the relay`,
        },
      ]);
    return [target];
  }

  /** Whether `userId` on `platform` may act on a case sent to `target` through the case's target. */
  mayAct(c: StoredCase, target: string, userId: string): boolean {
    const lists: string[][] = [];
    if (c.target.startsWith('route:')) {
      const allow = this.config.routes[c.target.slice(6)]?.allow;
      if (allow) lists.push(allow);
    }
    const perTarget = this.config.allow[target];
    if (perTarget) lists.push(perTarget);
    return lists.every((l) => l.includes(userId));
  }

  /** The approval policy for cases sent to `target` (a route's or the target's own), as a snapshot. */
  policyFor(target: string): CasePolicy | undefined {
    const name = target.startsWith('route:')
      ? this.config.routes[target.slice(6)]?.policy
      : this.config.targetPolicies[target];
    const p = name ? this.config.policies[name] : undefined;
    return name && p ? casePolicy(name, p) : undefined;
  }

  /** The policy of a case sent to `target`: the configured one, or the one asked for if allowed. */
  casePolicyFor(target: string, asked: CasePolicyInput | undefined): CasePolicy | undefined {
    const route = target.startsWith('route:') ? this.config.routes[target.slice(6)] : undefined;
    const r = resolveCasePolicy(
      {
        base: this.policyFor(target),
        mode: route?.case_policy ?? 'stricter',
        policies: this.config.policies,
        identityOf: (a) => this.identityOfAccount(a),
        where: route ? `route ${target.slice(6)}` : `target ${target}`,
      },
      asked,
    );
    if ('issues' in r) throw new ValidationError('invalid_policy', 'policy not allowed', r.issues);
    return r.policy;
  }

  /** The identity of `platform:user` (or an identity name given as is). */
  identityOfAccount(who: string): string {
    const i = who.indexOf(':');
    return i > 0 ? identityOf(this.config.identities, who.slice(0, i), who.slice(i + 1)) : who;
  }

  /** Takes a case in: validates its URLs, stores it once, posts its card to every target. */
  async ingest(
    input: IngestInput,
  ): Promise<{ case: StoredCase; created: boolean; messages?: StoredMessage[] }> {
    const targets = this.resolveTargets(input.target);
    const issues: ValidationIssue[] = [];
    // In production (no plain-HTTP loopback) names are resolved now as they will be at connect,
    // so a name for 127.0.0.1 or 10.0.0.1 is refused at intake rather than on first use.
    const check = (v: string) =>
      this.config.allowHttpLoopback
        ? Promise.resolve(urlRefusal(v, this.config))
        : resolvedUrlRefusal(v, this.config);
    for (const f of URL_FIELDS) {
      const v = input.hitl[f];
      const why = v ? await check(v) : null;
      if (why) issues.push({ path: `hitl.${f}`, message: why });
    }
    const serviceIssues = issues.length;
    if (input.notify_url) {
      const why = await check(input.notify_url);
      if (why) issues.push({ path: 'notify_url', message: why });
    }
    // Every refused URL in one answer; the agent's own webhook alone is not a bad hitl object.
    if (serviceIssues) throw new ValidationError('invalid_hitl', 'refused service URL', issues);
    if (issues.length)
      throw new ValidationError('invalid_notify_url', 'refused notify_url', issues);
    // A service is identified by all of its URLs. Its API (poll, submit, events) is one origin; a
    // 202 with a submit or events URL elsewhere could pass for another service's case. The review
    // page may live elsewhere (the spec's examples do), and is part of the identity below.
    const pollOrigin = new URL(input.hitl.poll_url).origin;
    for (const f of ['submit_url', 'events_url'] as const) {
      const v = input.hitl[f];
      if (v && new URL(v).origin !== pollOrigin)
        issues.push({
          path: `hitl.${f}`,
          message: `must be on the same origin as poll_url (${pollOrigin}): a service is identified by all of its URLs`,
        });
    }
    if (issues.length)
      throw new ValidationError('invalid_hitl', 'service URLs on different origins', issues);

    const { submit_token, review_url, ...hitl } = input.hitl;
    const now = this.now();
    const origin = new URL(input.hitl.poll_url).origin;
    const doc: CaseDoc = {
      hitl,
      warnings: input.warnings ?? [],
      reminders_sent: [],
      inline_submit: !!submit_token,
    };
    if (input.message) doc.message = input.message;
    if (input.notify_url) doc.notify_url = input.notify_url;
    if (input.notify_on) doc.notify_on = input.notify_on;
    if (input.labels) doc.labels = input.labels;
    const policy = this.casePolicyFor(input.target, input.policy);
    if (policy) doc.policy = policy;
    const ladder = input.target.startsWith('route:')
      ? this.config.routes[input.target.slice(6)]?.escalation
      : undefined;
    if (ladder) doc.escalation = caseEscalation(ladder, now);
    if (input.requested_by) doc.requested_by = this.identityOfAccount(input.requested_by);
    // Rounds link only within one service: same API origin and same review origin.
    const found = hitl.previous_case_id
      ? await this.store.findCase(origin, hitl.previous_case_id)
      : undefined;
    const previous = found && this.sameService(found, review_url) ? found : undefined;
    if (found && !previous)
      this.log.warn(
        { previous: found.id },
        'previous_case_id names a case of another service (review URL origin differs); not linked',
      );
    if (previous) doc.previous_id = previous.id;
    const secrets: CaseSecrets = { submit_token: submit_token ?? null, review_url };
    if (input.service_headers) secrets.service_headers = input.service_headers;
    // Already past expires_at on arrival: posted as expired, without live buttons (the service
    // would refuse a submit anyway), and not polled.
    const expiredOnArrival = Date.parse(hitl.expires_at) <= now;
    if (expiredOnArrival) doc.status_at = hitl.expires_at;
    const record: StoredCase = {
      id: `hc_${randomId(12)}`,
      key: randomId(6),
      origin,
      case_id: hitl.case_id,
      target: input.target,
      status: expiredOnArrival ? 'expired' : 'pending',
      version: 1,
      doc,
      secrets: this.sealer.seal(secrets),
      next_check_at: expiredOnArrival ? null : now + this.config.pollMinMs,
      etag: null,
      poll_failures: 0,
      claim: null,
      created_at: now,
      updated_at: now,
    };
    // The case, one message reservation per target and its first history row are one write: a
    // crash or a full disk leaves either all of them (reconcile or a retried intake posts) or none.
    const reserved = targets.map((t) => this.cards.reservation(record, t));
    const result = await this.store.createCase(record, {
      messages: reserved,
      // This process posts the cards right after: their posting leases are taken in the same write.
      leases: reserved.map((m) => this.cards.leaseOf(m)),
      history: {
        at: now,
        kind: 'ingested',
        detail: {
          target: input.target,
          case_id: hitl.case_id,
          warnings: doc.warnings,
          ...(expiredOnArrival ? { expired_on_arrival: true } : {}),
        },
      },
    });
    if (!result.created) {
      // Sent again with new credentials for the watch endpoints (rotated, or first refused): they
      // replace the sealed ones of the open case, so its next poll uses them.
      if (input.service_headers)
        await this.replaceServiceHeaders(result.case.id, input.service_headers);
      // The agent retried: finish any delivery the first intake left undone (a crash, a full disk).
      await this.settleDelivery(result.case, targets);
      return { case: (await this.store.getCase(result.case.id)) ?? result.case, created: false };
    }
    const stored = result.case;
    // The first history row went in with the case; the log and metrics hear of it as of any other.
    this.events.emit('history', record.id, 'ingested', {
      target: input.target,
      case_id: hitl.case_id,
      warnings: doc.warnings,
    });
    for (const w of doc.warnings) this.log.warn({ case: record.id }, w);
    if (previous) await this.patchDoc(previous.id, { next_id: record.id });
    // Posting changes the messages, not the case: the case in hand stays current (no re-read).
    const messages = await this.settleDelivery(stored, targets, reserved);
    // The watchers start on a new case at once (its event stream, its first reminder).
    this.events.emit('ingested', stored);
    return { case: stored, created: true, ...(messages ? { messages } : {}) };
  }

  /** Reseals an open case's secrets with new service credentials (history names no value). */
  private async replaceServiceHeaders(id: string, headers: Record<string, string>): Promise<void> {
    const changed = await this.mutate(id, (x) => {
      if (isTerminal(x.status)) return false;
      const secrets = this.secretsOf(x);
      if (JSON.stringify(secrets.service_headers ?? null) === JSON.stringify(headers)) return false;
      x.secrets = this.sealer.seal({ ...secrets, service_headers: headers });
      return true;
    });
    if (changed)
      await this.history(id, 'service_auth_replaced', { headers: Object.keys(headers).sort() });
  }

  /**
   * Posts the reserved cards of a stored case. A failure here (a platform down, the disk full on
   * the bookkeeping write) does not fail the intake: the case is stored with its reservations, and
   * reconcile or the agent's retry finishes the job.
   */
  private async settleDelivery(
    c: StoredCase,
    targets: string[],
    reserved?: StoredMessage[],
  ): Promise<StoredMessage[] | undefined> {
    try {
      return await this.cards.deliver(c, targets, reserved);
    } catch (err) {
      this.log.error(
        { case: c.id, err: err instanceof Error ? err.message : String(err) },
        'posting the cards of a new case failed; reconcile will retry',
      );
      return undefined;
    }
  }

  /** Opens a case's secrets. */
  secretsOf(c: StoredCase): CaseSecrets {
    return this.sealer.open(c.secrets);
  }

  /** The round of a case in a multi-round chain (1 for a lone case). */
  async roundOf(c: StoredCase): Promise<number> {
    let round = 1;
    let prev = c.doc.previous_id;
    while (prev && round < 50) {
      round++;
      prev = (await this.store.getCase(prev))?.doc.previous_id;
    }
    return round;
  }

  /**
   * The Details link of a case: a relay URL that redirects to review_url, so the review token never
   * reaches a chat platform, a card or a log line. The signature makes the link unguessable.
   */
  detailsUrl(c: StoredCase): string | undefined {
    if (!this.linkBase || !this.linkKey) return undefined;
    return `${this.linkBase}/r/${c.key}/${linkSignature(this.linkKey, c.key)}`;
  }

  /** Sets where Details links point and the key that signs them (at start-up). */
  setLinks(base: string, key: string): void {
    this.linkBase = base.replace(/\/$/, '');
    this.linkKey = key;
  }

  /** The card of a case as it stands. */
  async cardOf(c: StoredCase): Promise<Card> {
    const detailsUrl = this.detailsUrl(c);
    return renderCase(c, this.secretsOf(c), this.strings, {
      round: await this.roundOf(c),
      ...(detailsUrl ? { detailsUrl } : {}),
      identityOf: (a) => this.identityOfAccount(a),
    });
  }

  /**
   * Read-modify-write of a case with compare-and-set; `change` returns false for "nothing to do".
   * Returns the stored case after the change, or undefined when nothing changed.
   */
  async mutate(
    id: string,
    change: (c: StoredCase) => boolean,
    options: MutateOptions = {},
  ): Promise<StoredCase | undefined> {
    let known = options.known;
    const carry = options.carry?.done ? undefined : options.carry;
    for (let i = 0; i < 20; i++) {
      // Two copies rather than a recursive clone: a stored value of any depth cannot overflow the
      // stack. The copy in hand is serialised as the store does; else both copies are read.
      let current: StoredCase | undefined;
      let next: StoredCase | undefined;
      if (known) {
        const text = JSON.stringify(known);
        current = JSON.parse(text) as StoredCase;
        next = JSON.parse(text) as StoredCase;
        known = undefined;
      } else {
        current = await this.store.getCase(id);
        if (!current) return undefined;
        next = await this.store.getCase(id);
      }
      if (!next || next.version !== current.version) continue;
      if (!change(next)) return undefined;
      next.version = current.version + 1;
      next.updated_at = this.now();
      // A notify_url delivery is queued in the same write as the status it reports (at-least-once).
      const outbox = await deliveriesFor(this, next, current);
      const step = this.stepOf(carry, next);
      if (
        await this.store.updateCase(next, current.version, outbox.length ? outbox : undefined, step)
      ) {
        if (carry) carry.done = true;
        if (outbox.length) this.events.emit(NOTIFY_QUEUED_EVENT);
        for (const h of step?.history ?? []) this.recorded(id, h);
        this.events.emit(`change:${id}`, next);
        this.events.emit('change', next, current);
        void this.cards.refresh(id, next);
        return next;
      }
    }
    throw new Error(`case ${id} kept changing under us`);
  }

  /** The step writes of one change: what is carried, and the status row the change stashed. */
  private stepOf(carry: CarriedWrites | undefined, next: StoredCase): StepWrites | undefined {
    const extra = this.stashed.get(next);
    this.stashed.delete(next);
    if (!carry && !extra) return undefined;
    return {
      history: [...(carry?.history ?? []), ...(extra ?? [])],
      ...(carry?.releaseClaim ? { releaseClaim: carry.releaseClaim } : {}),
    };
  }

  /** History rows a change asks to write with it (applyStatus's status row), by the changed copy. */
  private readonly stashed = new WeakMap<StoredCase, HistoryEntry[]>();

  /** Announces a history row written as part of a step (the log and metrics listen). */
  recorded(caseId: string, entry: HistoryEntry): void {
    this.events.emit('history', caseId, entry.kind, entry.detail);
  }

  /** Sets fields of a case's doc (a visible change: the cards are refreshed). */
  patchDoc(
    id: string,
    patch: Partial<CaseDoc>,
    options?: MutateOptions,
  ): Promise<StoredCase | undefined> {
    return this.mutate(
      id,
      (c) => {
        Object.assign(c.doc, patch);
        return true;
      },
      options,
    );
  }

  /** Applies a status update from a poll, an SSE event, a callback or a submit; the state machine decides. */
  async applyStatus(
    id: string,
    u: StatusUpdate,
    source: string,
    extra: (c: StoredCase) => void = () => {},
    options: MutateOptions = {},
  ): Promise<StoredCase | undefined> {
    const tooDeep = jsonLimitIssue(u, source);
    if (tooDeep) {
      // The status still counts; the service's data that breaks the limits is left out (and said so).
      this.log.warn(
        { case: id, source, path: tooDeep.path.slice(0, 200) },
        `a status update ${tooDeep.message}; its data is left out`,
      );
      const { result, progress: _p, submission_context: _s, responded_by: _r, ...rest } = u;
      u = result ? { ...rest, result: { action: String(result.action).slice(0, 64) } } : rest;
    }
    let from: string | undefined;
    // One history row per status change, not per progress update (a stream may send thousands),
    // written in the same commit as the change.
    const statusRow = () => ({ from, to: u.status, source, action: u.result?.action ?? null });
    const changed = await this.mutate(
      id,
      (c) => {
        if (!canTransition(c.status, u.status)) return false;
        const same = c.status === u.status;
        if (
          same &&
          JSON.stringify(c.doc.progress ?? null) === JSON.stringify(u.progress ?? null) &&
          !u.next_case_id
        )
          return false;
        from = c.status;
        c.status = u.status;
        const d = c.doc;
        if (u.result) d.result = u.result;
        if (u.responded_by) d.responded_by = u.responded_by;
        if (u.submission_context) d.submission_context = u.submission_context;
        if (u.verification_result) d.verification_result = u.verification_result;
        if (u.progress) d.progress = u.progress;
        if (u.next_case_id) d.next_case_id = u.next_case_id;
        if (u.default_action) d.default_action = u.default_action;
        if (u.reason) d.reason = u.reason;
        if (!same) d.status_at = u.at ?? new Date(this.now()).toISOString();
        if (isTerminal(u.status)) {
          c.next_check_at = null;
          delete d.notice;
          // Nothing is submitted or watched any more: the submit token and the service credentials
          // go at once (the review URL stays for the final card's Details link until retention).
          c.secrets = this.sealer.seal({
            submit_token: null,
            review_url: this.secretsOf(c).review_url,
          });
        }
        extra(c);
        if (from !== u.status || u.next_case_id)
          this.stashed.set(c, [{ at: this.now(), kind: 'status', detail: statusRow() }]);
        return true;
      },
      options,
    );
    if (changed && (from !== u.status || u.next_case_id)) {
      // After its history row, so listeners (receipts) see the row that records the change.
      this.events.emit('status', changed);
      if (u.next_case_id) await this.linkNext(changed, u.next_case_id);
    }
    return changed;
  }

  /** Whether `c` belongs to the service whose review page is at `reviewUrl` (poll origin aside). */
  private sameService(c: StoredCase, reviewUrl: string): boolean {
    try {
      return new URL(this.secretsOf(c).review_url).origin === new URL(reviewUrl).origin;
    } catch {
      return false;
    }
  }

  private async linkNext(c: StoredCase, nextCaseId: string): Promise<void> {
    const found = await this.store.findCase(c.origin, nextCaseId);
    const next = found && this.sameService(found, this.secretsOf(c).review_url) ? found : undefined;
    if (next && !c.doc.next_id) {
      await this.patchDoc(c.id, { next_id: next.id });
      if (!next.doc.previous_id) await this.patchDoc(next.id, { previous_id: c.id });
    }
  }

  /** Appends to a case's history. */
  async history(caseId: string, kind: string, detail: Record<string, unknown>): Promise<void> {
    await this.store.appendHistory(caseId, { at: this.now(), kind, detail });
    // The lifecycle log and metrics listen here (relay.ts), so each event is recorded in one place.
    this.events.emit('history', caseId, kind, detail);
  }

  /**
   * Waits until `id` is terminal (or its delivery given up), `timeoutMs` passes or `signal` aborts
   * (shutdown); returns the case as it then is. Woken by the case's change events: in this process
   * they carry the case (no read), from other replicas they come through the store's change feed
   * (a read then); while nothing changes, a waiting request reads nothing.
   */
  async waitFor(
    id: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<StoredCase | undefined> {
    const deadline = this.now() + timeoutMs;
    let c = await this.store.getCase(id);
    for (;;) {
      if (!c || isTerminal(c.status) || c.doc.delivery_failed) return c;
      const left = deadline - this.now();
      if (left <= 0 || signal?.aborted) return c;
      const woken = await new Promise<StoredCase | 'read' | 'deadline'>((resolve) => {
        const done = (why: StoredCase | 'read' | 'deadline') => {
          clearTimeout(timer);
          this.events.off(`change:${id}`, onChange);
          this.events.off(CHANGES_MISSED, onMissed);
          signal?.removeEventListener('abort', onAbort);
          resolve(why);
        };
        const onChange = (next?: StoredCase) => done(next ?? 'read');
        const onMissed = () => done('read');
        const onAbort = () => done('deadline');
        const timer = setTimeout(() => done('deadline'), left);
        this.events.on(`change:${id}`, onChange);
        this.events.on(CHANGES_MISSED, onMissed);
        signal?.addEventListener('abort', onAbort);
      });
      // At the deadline the answer is read once more: it is the agent's view of the case.
      if (woken === 'deadline') return (await this.store.getCase(id)) ?? c;
      c = woken === 'read' ? await this.store.getCase(id) : woken;
    }
  }
}

/** Emitted when changes of other replicas may have been missed (the change feed reconnected). */
export const CHANGES_MISSED = 'changes-missed';
