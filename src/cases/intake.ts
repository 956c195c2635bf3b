/** Intake: a validated hitl object is checked, stored once with its message slots, and posted. */
import type { RelayConfig } from '../config/config.ts';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import type { Logger } from '../log.ts';
import { intakeUrlRefusal, type UrlPolicy } from '../net/url-policy.ts';
import type { CasePolicyInput } from '../policy/case-policy.ts';
import { caseEscalation } from '../policy/escalation.ts';
import { caseExpiryWarnings, type ExpiryThresholds } from '../policy/expiry-warning.ts';
import type { HitlObject } from '../protocol/hitl.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Sealer } from '../store/sealer.ts';
import type { Store } from '../store/store.ts';
import type { CaseDoc, CaseSecrets, StoredCase, StoredMessage } from '../store/types.ts';
import type { CardDelivery } from './card-delivery.ts';
import { randomId } from './ids.ts';
import type { CaseRepository } from './repository.ts';
import { chainAfter } from './rounds.ts';
import { sameService } from './status.ts';
import type { Targets } from './targets.ts';

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
  /** Warnings before expiry for this case (seconds before, largest first), over the route's and the relay's. */
  expiry_warning?: ExpiryThresholds | undefined;
}

/** What ingest() answers. */
export interface IngestResult {
  case: StoredCase;
  created: boolean;
  messages?: StoredMessage[];
}

/** What intake touches. */
export interface IntakeDeps {
  config: UrlPolicy &
    Pick<RelayConfig, 'allowHttpLoopback' | 'pollMinMs' | 'routes'> &
    Partial<Pick<RelayConfig, 'expiryWarning'>>;
  store: Pick<Store, 'findCase' | 'createCase' | 'getCase'>;
  sealer: Sealer;
  log: Logger;
  now: () => number;
  targets: Pick<Targets, 'resolveTargets' | 'casePolicyFor' | 'identityOfAccount'>;
  cases: Pick<CaseRepository, 'mutate' | 'history' | 'patchDoc' | 'events'>;
  cards: Pick<CardDelivery, 'reservation' | 'leaseOf' | 'deliver'>;
}

const URL_FIELDS = ['review_url', 'poll_url', 'submit_url', 'events_url'] as const;

/** Takes cases in. */
export class Intake {
  constructor(private readonly d: IntakeDeps) {}

  /** Takes a case in: validates its URLs, stores it once, posts its card to every target. */
  async ingest(input: IngestInput): Promise<IngestResult> {
    const targets = this.d.targets.resolveTargets(input.target);
    await this.checkUrls(input);
    const { record } = await this.recordOf(input);
    // The case, one message reservation per target and its first history row are one write: a
    // crash or a full disk leaves either all of them (reconcile or a retried intake posts) or none.
    const reserved = targets.map((t) => this.d.cards.reservation(record, t));
    const ingested = {
      target: input.target,
      case_id: record.case_id,
      warnings: record.doc.warnings,
    };
    const result = await this.d.store.createCase(record, {
      messages: reserved,
      // This process posts the cards right after: their posting leases are taken in the same write.
      leases: reserved.map((m) => this.d.cards.leaseOf(m)),
      history: {
        at: record.created_at,
        kind: 'ingested',
        detail: {
          ...ingested,
          ...(record.status === 'expired' ? { expired_on_arrival: true } : {}),
        },
      },
    });
    if (!result.created) return this.again(result.case, targets, input);
    const stored = result.case;
    // The first history row went in with the case; the log and metrics hear of it as of any other.
    this.d.cases.events.emit('history', record.id, 'ingested', ingested);
    for (const w of record.doc.warnings) this.d.log.warn({ case: record.id }, w);
    // The earlier round is not marked revised here: a 202 can copy another service's URLs. It is
    // marked once its service names this case as its next_case_id (the watchers poll it now).
    // Posting changes the messages, not the case: the case in hand stays current (no re-read).
    const messages = await this.settleDelivery(stored, targets, reserved);
    // The watchers start on a new case at once (its event stream, its first reminder).
    this.d.cases.events.emit('ingested', stored);
    return { case: stored, created: true, ...(messages ? { messages } : {}) };
  }

  /** The same case sent again: new watch credentials replace the old, undone posts are finished. */
  private async again(c: StoredCase, targets: string[], input: IngestInput): Promise<IngestResult> {
    // Rotated, or first refused: they replace the sealed ones of the open case for its next poll.
    if (input.service_headers) await this.replaceServiceHeaders(c.id, input.service_headers);
    // The agent retried: finish any delivery the first intake left undone (a crash, a full disk).
    await this.settleDelivery(c, targets);
    return { case: (await this.d.store.getCase(c.id)) ?? c, created: false };
  }

  /** Refuses service URLs (and notify_url) the URL policy forbids, or spread over origins. */
  private async checkUrls(input: IngestInput): Promise<void> {
    const issues: ValidationIssue[] = [];
    const cfg = this.d.config;
    // In production names are resolved now as they will be at connect (intakeUrlRefusal).
    const check = (v: string) => intakeUrlRefusal(v, cfg);
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
  }

  /** The case record to store, and the earlier round it continues (if of the same service). */
  private async recordOf(
    input: IngestInput,
  ): Promise<{ record: StoredCase; previous: StoredCase | undefined }> {
    const { submit_token, review_url, ...hitl } = input.hitl;
    const now = this.d.now();
    const origin = new URL(input.hitl.poll_url).origin;
    const doc = this.docOf(input, now);
    const previous = await this.previousOf(origin, hitl.previous_case_id, review_url);
    if (previous) {
      doc.previous_id = previous.id;
      doc.chain = await chainAfter(this.d.store, previous);
    }
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
      secrets: this.d.sealer.seal(secrets),
      next_check_at: expiredOnArrival ? null : now + this.d.config.pollMinMs,
      etag: null,
      poll_failures: 0,
      claim: null,
      created_at: now,
      updated_at: now,
    };
    return { record, previous };
  }

  /** The case's doc: the hitl object without its secrets, and what the agent asked for. */
  private docOf(input: IngestInput, now: number): CaseDoc {
    const { submit_token, review_url: _r, ...hitl } = input.hitl;
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
    const policy = this.d.targets.casePolicyFor(input.target, input.policy);
    if (policy) doc.policy = policy;
    const route = input.target.startsWith('route:')
      ? this.d.config.routes[input.target.slice(6)]
      : undefined;
    if (route?.escalation) doc.escalation = caseEscalation(route.escalation, now);
    // The case's own thresholds, else its route's, else the relay's EXPIRY_WARNING.
    const warnings = caseExpiryWarnings(
      input.expiry_warning ?? route?.expiry_warning ?? this.d.config.expiryWarning,
      hitl.expires_at,
      now,
    );
    if (warnings) doc.expiry_warnings = warnings;
    if (input.requested_by) doc.requested_by = this.d.targets.identityOfAccount(input.requested_by);
    return doc;
  }

  /** The earlier round `previousCaseId` names: linked only within one service (API and review origin). */
  private async previousOf(
    origin: string,
    previousCaseId: string | undefined,
    reviewUrl: string,
  ): Promise<StoredCase | undefined> {
    const found = previousCaseId ? await this.d.store.findCase(origin, previousCaseId) : undefined;
    const previous = found && sameService(this.d.sealer, found, reviewUrl) ? found : undefined;
    if (found && !previous)
      this.d.log.warn(
        { previous: found.id },
        'previous_case_id names a case of another service (review URL origin differs); not linked',
      );
    return previous;
  }

  /** Reseals an open case's secrets with new service credentials (history names no value). */
  private async replaceServiceHeaders(id: string, headers: Record<string, string>): Promise<void> {
    const changed = await this.d.cases.mutate(id, (x) => {
      if (isTerminal(x.status)) return false;
      const secrets = this.d.sealer.open(x.secrets);
      if (JSON.stringify(secrets.service_headers ?? null) === JSON.stringify(headers)) return false;
      x.secrets = this.d.sealer.seal({ ...secrets, service_headers: headers });
      return true;
    });
    if (changed)
      await this.d.cases.history(id, 'service_auth_replaced', {
        headers: Object.keys(headers).sort(),
      });
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
      return await this.d.cards.deliver(c, targets, reserved);
    } catch (err) {
      this.d.log.error(
        { case: c.id, err: err instanceof Error ? err.message : String(err) },
        'posting the cards of a new case failed; reconcile will retry',
      );
      return undefined;
    }
  }
}
