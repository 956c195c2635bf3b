/** The engine: a case's lifecycle from intake to its final card. */
import { createHmac, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Dispatcher } from 'undici';
import type { PlatformAdapter } from '../adapter.ts';
import type { RelayConfig } from '../config/config.ts';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import type { Logger } from '../log.ts';
import { urlRefusal } from '../net/url-policy.ts';
import { deliveriesFor, NOTIFY_QUEUED_EVENT } from '../notify/deliveries.ts';
import type { HitlObject } from '../protocol/hitl.ts';
import { canTransition } from '../protocol/state.ts';
import type { StatusUpdate } from '../protocol/status.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Card } from '../render/card.ts';
import { renderCase } from '../render/render-case.ts';
import { loadStrings, type Strings } from '../render/templates.ts';
import { CardDelivery } from './card-delivery.ts';
import type { Sealer } from './sealer.ts';
import type { Store } from './store.ts';
import type { CaseDoc, CaseSecrets, StoredCase } from './types.ts';

/** What the engine needs. */
export interface EngineOptions {
  store: Store;
  sealer: Sealer;
  adapters: ReadonlyMap<string, PlatformAdapter>;
  config: RelayConfig;
  log: Logger;
  dispatcher: Dispatcher;
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
          { path: 'target', message: `route "${target.slice(6)}" is not configured` },
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
          message: `platform "${platform}" is not enabled (enabled: ${[...this.adapters.keys()].join(', ') || 'none'})`,
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

  /** Takes a case in: validates its URLs, stores it once, posts its card to every target. */
  async ingest(input: IngestInput): Promise<{ case: StoredCase; created: boolean }> {
    const targets = this.resolveTargets(input.target);
    const issues: ValidationIssue[] = [];
    for (const f of URL_FIELDS) {
      const v = input.hitl[f];
      const why = v ? urlRefusal(v, this.config) : null;
      if (why) issues.push({ path: `hitl.${f}`, message: why });
    }
    if (input.notify_url) {
      const why = urlRefusal(input.notify_url, this.config);
      if (why) issues.push({ path: 'notify_url', message: why });
    }
    if (issues.length) throw new ValidationError('invalid_hitl', 'refused service URL', issues);

    const { submit_token, review_url, ...hitl } = input.hitl;
    const now = this.now();
    const origin = new URL(input.hitl.poll_url).origin;
    const doc: CaseDoc = { hitl, warnings: input.warnings ?? [], reminders_sent: [] };
    if (input.message) doc.message = input.message;
    if (input.notify_url) doc.notify_url = input.notify_url;
    if (input.notify_on) doc.notify_on = input.notify_on;
    if (input.labels) doc.labels = input.labels;
    const previous = hitl.previous_case_id
      ? await this.store.findCase(origin, hitl.previous_case_id)
      : undefined;
    if (previous) doc.previous_id = previous.id;
    const secrets: CaseSecrets = { submit_token: submit_token ?? null, review_url };
    const record: StoredCase = {
      id: `hc_${randomId(12)}`,
      key: randomId(6),
      origin,
      case_id: hitl.case_id,
      target: input.target,
      status: 'pending',
      version: 1,
      doc,
      secrets: this.sealer.seal(secrets),
      next_check_at: now + this.config.pollMinMs,
      etag: null,
      poll_failures: 0,
      claim: null,
      created_at: now,
      updated_at: now,
    };
    const result = await this.store.createCase(record);
    if (!result.created) return result;
    await this.history(record.id, 'ingested', {
      target: input.target,
      case_id: hitl.case_id,
      warnings: doc.warnings,
    });
    for (const w of doc.warnings) this.log.warn({ case: record.id }, w);
    if (previous) await this.patchDoc(previous.id, { next_id: record.id });
    await this.cards.deliver(result.case, targets);
    const stored = (await this.store.getCase(record.id)) ?? result.case;
    // The watchers start on a new case at once (its event stream, its first reminder).
    this.events.emit('ingested', stored);
    return { case: stored, created: true };
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
    });
  }

  /**
   * Read-modify-write of a case with compare-and-set; `change` returns false for "nothing to do".
   * Returns the stored case after the change, or undefined when nothing changed.
   */
  async mutate(id: string, change: (c: StoredCase) => boolean): Promise<StoredCase | undefined> {
    for (let i = 0; i < 20; i++) {
      const current = await this.store.getCase(id);
      if (!current) return undefined;
      const next: StoredCase = structuredClone(current);
      if (!change(next)) return undefined;
      next.version = current.version + 1;
      next.updated_at = this.now();
      // A notify_url delivery is queued in the same write as the status it reports (at-least-once).
      const outbox = await deliveriesFor(this, next, current);
      if (await this.store.updateCase(next, current.version, outbox.length ? outbox : undefined)) {
        if (outbox.length) this.events.emit(NOTIFY_QUEUED_EVENT);
        this.events.emit(`change:${id}`, next);
        this.events.emit('change', next, current);
        void this.cards.refresh(id);
        return next;
      }
    }
    throw new Error(`case ${id} kept changing under us`);
  }

  /** Sets fields of a case's doc (a visible change: the cards are refreshed). */
  patchDoc(id: string, patch: Partial<CaseDoc>): Promise<StoredCase | undefined> {
    return this.mutate(id, (c) => {
      Object.assign(c.doc, patch);
      return true;
    });
  }

  /** Applies a status update from a poll, an SSE event, a callback or a submit; the state machine decides. */
  async applyStatus(
    id: string,
    u: StatusUpdate,
    source: string,
    extra: (c: StoredCase) => void = () => {},
  ): Promise<StoredCase | undefined> {
    let from: string | undefined;
    const changed = await this.mutate(id, (c) => {
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
      if (u.progress) d.progress = u.progress;
      if (u.next_case_id) d.next_case_id = u.next_case_id;
      if (u.default_action) d.default_action = u.default_action;
      if (u.reason) d.reason = u.reason;
      if (!same) d.status_at = u.at ?? new Date(this.now()).toISOString();
      if (isTerminal(u.status)) {
        c.next_check_at = null;
        delete d.notice;
      }
      extra(c);
      return true;
    });
    if (changed) {
      await this.history(id, 'status', {
        from,
        to: u.status,
        source,
        action: u.result?.action ?? null,
      });
      if (u.next_case_id) await this.linkNext(changed, u.next_case_id);
    }
    return changed;
  }

  private async linkNext(c: StoredCase, nextCaseId: string): Promise<void> {
    const next = await this.store.findCase(c.origin, nextCaseId);
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

  /** Waits until `id` is terminal, `timeoutMs` passes or `signal` aborts (shutdown); returns the case as it then is. */
  async waitFor(
    id: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<StoredCase | undefined> {
    const deadline = this.now() + timeoutMs;
    for (;;) {
      const c = await this.store.getCase(id);
      if (!c || isTerminal(c.status) || c.doc.delivery_failed) return c;
      const left = deadline - this.now();
      if (left <= 0 || signal?.aborted) return c;
      // The event wakes us at once in this process; the 1 s re-read covers changes made by other replicas.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.events.off(`change:${id}`, done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, 1000));
        this.events.on(`change:${id}`, done);
        signal?.addEventListener('abort', done);
      });
    }
  }
}
