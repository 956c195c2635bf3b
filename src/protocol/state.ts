/** The case state machine (spec section 8 "Status Machine"): nothing leaves a terminal state. */
import { type CaseStatus, isTerminal } from './types.ts';

const ORDER: Readonly<Record<CaseStatus, number>> = {
  pending: 0,
  opened: 1,
  in_progress: 2,
  completed: 3,
  expired: 3,
  cancelled: 3,
};

/**
 * Whether a case at `from` may move to `to`. Terminal states are final; other moves go forward only
 * (a late "pending" poll after "opened" is stale, not a change). Same-status is allowed so progress
 * updates within in_progress apply.
 */
export function canTransition(from: CaseStatus, to: CaseStatus): boolean {
  if (isTerminal(from)) return false;
  if (from === to) return true;
  return ORDER[to] > ORDER[from];
}
