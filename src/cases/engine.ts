/**
 * The Engine bundle: the flat shape the relay had before its services were split out. Only
 * src/asks and src/demo (converted after the merge) and tests still use it; new code takes the
 * services it needs (services.ts).
 */
import type { Dispatcher } from 'undici';
import type { PlatformAdapter } from '../adapter.ts';
import type { RelayConfig } from '../config/config.ts';
import type { Logger } from '../log.ts';
import type { CasePolicyInput } from '../policy/case-policy.ts';
import type { CasePolicy } from '../policy/policy.ts';
import type { StatusUpdate } from '../protocol/status.ts';
import type { Card } from '../render/card.ts';
import type { Strings } from '../render/templates.ts';
import type { CardDelivery } from './card-delivery.ts';
import type { IngestInput, IngestResult } from './intake.ts';
import type { MutateOptions } from './repository.ts';
import type { Sealer } from './sealer.ts';
import type { Services } from './services.ts';
import type { Store } from './store.ts';
import type { CaseDoc, CaseSecrets, HistoryEntry, StoredCase } from './types.ts';

export type { IngestInput } from './intake.ts';
export type { CarriedWrites, MutateOptions } from './repository.ts';

/** The flat view of the services. */
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
  readonly events: Services['cases']['events'];
  readonly cards: CardDelivery;

  constructor(private readonly s: Services) {
    this.store = s.store;
    this.sealer = s.sealer;
    this.adapters = s.adapters;
    this.config = s.config;
    this.log = s.log;
    this.dispatcher = s.dispatcher;
    this.submitDispatcher = s.submitDispatcher;
    this.instanceId = s.instanceId;
    this.now = s.now;
    this.strings = s.strings;
    this.events = s.cases.events;
    this.cards = s.cards;
  }

  resolveTargets(target: string): string[] {
    return this.s.targets.resolveTargets(target);
  }
  mayAct(c: StoredCase, target: string, userId: string): boolean {
    return this.s.targets.mayAct(c, target, userId);
  }
  policyFor(target: string): CasePolicy | undefined {
    return this.s.targets.policyFor(target);
  }
  casePolicyFor(target: string, asked: CasePolicyInput | undefined): CasePolicy | undefined {
    return this.s.targets.casePolicyFor(target, asked);
  }
  identityOfAccount(who: string): string {
    return this.s.targets.identityOfAccount(who);
  }
  ingest(input: IngestInput): Promise<IngestResult> {
    return this.s.intake.ingest(input);
  }
  secretsOf(c: StoredCase): CaseSecrets {
    return this.s.sealer.open(c.secrets);
  }
  detailsUrl(c: StoredCase): string | undefined {
    return this.s.render.detailsUrl(c);
  }
  cardOf(c: StoredCase): Promise<Card> {
    return this.s.render.cardOf(c);
  }
  mutate(id: string, change: (c: StoredCase) => boolean, options?: MutateOptions) {
    return this.s.cases.mutate(id, change, options);
  }
  patchDoc(id: string, patch: Partial<CaseDoc>, options?: MutateOptions) {
    return this.s.cases.patchDoc(id, patch, options);
  }
  recorded(caseId: string, entry: HistoryEntry): void {
    this.s.cases.recorded(caseId, entry);
  }
  history(caseId: string, kind: string, detail: Record<string, unknown>): Promise<void> {
    return this.s.cases.history(caseId, kind, detail);
  }
  waitFor(id: string, timeoutMs: number, signal?: AbortSignal) {
    return this.s.cases.waitFor(id, timeoutMs, signal);
  }
  applyStatus(
    id: string,
    u: StatusUpdate,
    source: string,
    extra?: (c: StoredCase) => void,
    options?: MutateOptions,
  ) {
    return this.s.status.apply(id, u, source, extra, options);
  }
}
