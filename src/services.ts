/**
 * The relay's services, each with its own narrow dependencies, built and wired in one place (the
 * composition root, relay.ts, calls this). Every consumer takes only the services it names.
 */
import type { Dispatcher } from 'undici';
import type { PlatformAdapter } from './adapter.ts';
import { CardDelivery } from './cases/card-delivery.ts';
import { CardRenderer } from './cases/card-render.ts';
import { CardRepost } from './cases/card-repost.ts';
import { Inbox } from './cases/inbox.ts';
import { Intake } from './cases/intake.ts';
import { PendingList } from './cases/pending.ts';
import { CaseRepository } from './cases/repository.ts';
import { StatusApplier } from './cases/status.ts';
import { Targets } from './cases/targets.ts';
import type { RelayConfig } from './config/config.ts';
import type { Logger } from './log.ts';
import type { Resolve } from './net/url-policy.ts';
import { deliveriesFor } from './notify/deliveries.ts';
import { loadStrings, type Strings } from './render/templates.ts';
import type { Sealer } from './store/sealer.ts';
import type { Store } from './store/store.ts';
import type { StoredCase } from './store/types.ts';
import { TapPipeline } from './tap/pipeline.ts';

/** What the services are built from. */
export interface ServicesOptions {
  store: Store;
  sealer: Sealer;
  adapters: ReadonlyMap<string, PlatformAdapter>;
  config: RelayConfig;
  log: Logger;
  /** Connections for polls and streams. */
  dispatcher: Dispatcher;
  /** Connections for submits only (defaults to `dispatcher`). */
  submitDispatcher?: Dispatcher;
  /** Names this process in claims and leases. */
  instanceId: string;
  now?: () => number;
  /** Resolves host names for the intake checks of agents' URLs (node:dns unless a test gives one). */
  resolve?: Resolve;
}

/** Every service of a relay. */
export interface Services {
  readonly config: RelayConfig;
  readonly log: Logger;
  readonly now: () => number;
  readonly instanceId: string;
  readonly store: Store;
  readonly sealer: Sealer;
  readonly strings: Strings;
  readonly adapters: ReadonlyMap<string, PlatformAdapter>;
  readonly dispatcher: Dispatcher;
  readonly submitDispatcher: Dispatcher;
  readonly resolve?: Resolve | undefined;
  /** Targets, routes, allowlists and policies (configuration only). */
  readonly targets: Targets;
  /** Cases, their history and change events. */
  readonly cases: CaseRepository;
  /** Cards and Details links. */
  readonly render: CardRenderer;
  /** Posting and editing cards. */
  readonly cards: CardDelivery;
  readonly intake: Intake;
  readonly status: StatusApplier;
  readonly taps: TapPipeline;
  /** `/pending` in a chat: the open cases a person may decide there. */
  readonly pending: PendingList;
  /** The web inbox: a person's open cases across a platform's chats. */
  readonly inbox: Inbox;
  /** `/pending`'s "Re-post": a case's card posted again in its chat. */
  readonly reposts: CardRepost;
}

/** Builds the services and wires the one event between them (a case change edits its cards). */
export function createServices(o: ServicesOptions): Services {
  const now = o.now ?? Date.now;
  const base = {
    config: o.config,
    log: o.log,
    now,
    instanceId: o.instanceId,
    store: o.store,
    sealer: o.sealer,
    strings: loadStrings(o.config.locale),
    adapters: o.adapters,
    dispatcher: o.dispatcher,
    submitDispatcher: o.submitDispatcher ?? o.dispatcher,
    resolve: o.resolve,
  };
  const targets = new Targets(o.config, new Set(o.adapters.keys()));
  // A change's notify_url deliveries are built here and written in the change's own commit.
  const deliveries = (next: StoredCase, prev: StoredCase) =>
    deliveriesFor({ store: o.store, now }, next, prev);
  const cases = new CaseRepository({ store: o.store, now, deliveriesFor: deliveries });
  const identityOfAccount = (who: string) => targets.identityOfAccount(who);
  const render = new CardRenderer({ ...base, identityOfAccount });
  const cards = new CardDelivery({ ...base, render, cases, targets });
  // Every stored change of a case brings its cards up to date, in order.
  cases.events.on('change', (next: StoredCase) => void cards.refresh(next.id, next));
  const status = new StatusApplier({ ...base, cases });
  const intake = new Intake({ ...base, targets, cases, cards });
  const taps = new TapPipeline({ ...base, targets, cases, status, render });
  const pending = new PendingList({ ...base, targets, render });
  const inbox = new Inbox({ ...base, targets, render }, pending);
  const reposts = new CardRepost({ ...base, targets, render, cards, cases });
  return { ...base, targets, cases, render, cards, intake, status, taps, pending, inbox, reposts };
}
