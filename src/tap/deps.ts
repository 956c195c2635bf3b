/** What the tap pipeline touches, and the shapes its steps pass along. */
import type { Dispatcher } from 'undici';
import type { TapOutcome } from '../adapter.ts';
import type { CardRenderer } from '../cases/card-render.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { StatusApplier } from '../cases/status.ts';
import type { Targets } from '../cases/targets.ts';
import type { RelayConfig } from '../config/config.ts';
import type { Logger } from '../log.ts';
import type { Strings } from '../render/templates.ts';
import type { Sealer } from '../store/sealer.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';

/** The services a tap goes through, from the button to the service's answer. */
export interface TapDeps {
  store: Pick<
    Store,
    | 'getCaseByKey'
    | 'getCase'
    | 'listMessages'
    | 'claimCase'
    | 'takeOverClaim'
    | 'releaseClaim'
    | 'updateWatch'
    | 'kv'
  >;
  sealer: Sealer;
  strings: Strings;
  log: Logger;
  now: () => number;
  /** Names this process in claims. */
  instanceId: string;
  config: Pick<RelayConfig, 'claimMs' | 'submitTimeoutMs'>;
  /** Connections for the confirming polls. */
  dispatcher: Dispatcher;
  /** Connections for submits only. */
  submitDispatcher: Dispatcher;
  targets: Pick<Targets, 'mayAct' | 'identityOfAccount'>;
  cases: Pick<CaseRepository, 'mutate' | 'patchDoc' | 'history' | 'recorded' | 'events'>;
  status: Pick<StatusApplier, 'apply'>;
  render: Pick<CardRenderer, 'cardOf'>;
}

/** A tap resolved to its case and the target it was tapped on, with its audit line. */
export interface ResolvedTap {
  c: StoredCase;
  target: string;
  /** The audit trail of the tap: who (id and shown name), where (platform and chat), what action. */
  who: Record<string, unknown>;
}

/** Where a step ends the tap: the reply, and the history row that records it (if any). */
export interface Stop {
  outcome: TapOutcome;
  view?: Record<string, unknown>;
  /** The case as the step left it (else the reply reads it). */
  current?: StoredCase | undefined;
  row?: { kind: string; detail: Record<string, unknown> };
  issues?: Array<{ path: string; message: string }>;
}

/** A refusal of `t`'s tap, recorded as `tap_refused` with its reason. */
export function refusal(
  t: ResolvedTap,
  reason: string,
  outcome: TapOutcome,
  view?: Record<string, unknown>,
  current?: StoredCase,
): Stop {
  return {
    outcome,
    ...(view ? { view } : {}),
    ...(current ? { current } : {}),
    row: { kind: 'tap_refused', detail: { ...t.who, reason } },
  };
}

/** Whether a step's result ends the tap. */
export function isStop<T extends object>(r: T | Stop): r is Stop {
  return 'outcome' in r;
}
