/**
 * Intake's delivery rules: a case no target can ever show is refused before anything is stored; a
 * case whose every post was refused ends its waiters at once; re-sending a tracked case with a new
 * target adds that target (fan-out).
 */
import type { PlatformAdapter } from '../adapter.ts';
import type { CardDelivery } from '../cases/card-delivery.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { Health } from '../health.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase, StoredMessage } from '../store/types.ts';
import { ApiError } from './api-error.ts';

/** What intake's delivery rules touch. */
export interface IntakeDeliveryDeps {
  adapters: ReadonlyMap<string, Pick<PlatformAdapter, 'checkAddress'>>;
  store: Pick<Store, 'listMessages' | 'getCase'>;
  cases: Pick<CaseRepository, 'mutate' | 'history'>;
  cards: Pick<CardDelivery, 'deliver'>;
  log: Logger;
  now: () => number;
}

/** One target and why a card cannot reach it. */
export interface TargetProblem {
  target: string;
  reason: string;
}

/** Why each concrete target of `target` cannot work (empty when all may); throws ValidationError for unknown ones. */
export async function targetProblems(
  deps: Pick<IntakeDeliveryDeps, 'adapters'>,
  health: Health | undefined,
  targets: string[],
): Promise<TargetProblem[]> {
  const problems: TargetProblem[] = [];
  for (const target of targets) {
    const platform = target.slice(0, target.indexOf(':'));
    const refused = health?.refusal(`platform:${platform}`);
    if (refused) {
      problems.push({ target, reason: `${platform} is not working: ${refused}` });
      continue;
    }
    const why = await deps.adapters
      .get(platform)
      ?.checkAddress?.(target.slice(platform.length + 1));
    if (why) problems.push({ target, reason: why });
  }
  return problems;
}

/** The 422 for a case nobody will see (with its id when it was stored, and why each target fails). */
export function notDelivered(problems: TargetProblem[], caseId?: string): ApiError {
  return new ApiError(
    422,
    'not_delivered',
    `no target can show this case: ${problems.map((p) => `${p.target}: ${p.reason}`).join('; ')}`,
    problems.map((p) => ({ path: p.target, message: p.reason })),
    { fields: { ...(caseId ? { id: caseId } : {}), targets: problems } },
  );
}

/** The targets whose post was refused for good, when every message of the case was (else null). */
export async function allRefused(
  deps: Pick<IntakeDeliveryDeps, 'store'>,
  c: StoredCase,
  known?: StoredMessage[],
): Promise<TargetProblem[] | null> {
  const messages = known ?? (await deps.store.listMessages(c.id));
  if (!messages.length || messages.some((m) => m.state !== 'failed')) return null;
  return messages.map((m) => ({ target: m.target, reason: m.error ?? 'refused' }));
}

/** Marks a case undeliverable: its waiters end at once with `delivery.state` "failed" (and notify_url hears it). */
export async function giveUpDelivery(
  deps: Pick<IntakeDeliveryDeps, 'cases' | 'now' | 'log'>,
  id: string,
  reason: string,
): Promise<StoredCase | undefined> {
  const changed = await deps.cases.mutate(id, (c) => {
    if (c.doc.delivery_failed) return false;
    c.doc.delivery_failed = { at: new Date(deps.now()).toISOString(), reason };
    return true;
  });
  if (changed) {
    await deps.cases.history(id, 'delivery_failed', { reason });
    deps.log.warn({ case: id, target: changed.target, reason }, 'case not delivered: gave up');
  }
  return changed;
}

/**
 * A tracked case sent again with a target it has no card for yet (a new target, or one whose post
 * an outage cut off before it was reserved): the card is posted there too (the message slot per
 * case and target keeps this once), and a given-up delivery gets another chance.
 */
export async function fanOut(
  deps: Pick<IntakeDeliveryDeps, 'store' | 'cases' | 'cards' | 'log'>,
  c: StoredCase,
  targets: string[],
): Promise<boolean> {
  const have = new Set((await deps.store.listMessages(c.id)).map((m) => m.target));
  const fresh = targets.filter((t) => !have.has(t));
  if (!fresh.length) return false;
  await deps.cases.history(c.id, 'fanout', { targets: fresh });
  deps.log.info(
    { case: c.id, targets: fresh },
    'case sent again: posting to targets without a card',
  );
  if (c.doc.delivery_failed)
    await deps.cases.mutate(c.id, (x) => {
      delete x.doc.delivery_failed;
      return true;
    });
  const current = (await deps.store.getCase(c.id)) ?? c;
  await deps.cards.deliver(current, fresh);
  return true;
}
