/** One submit being settled, as the settle steps share it. */
import type { Tap } from '../adapter.ts';
import type { CarriedWrites } from '../cases/repository.ts';
import type { SubmitRequest } from '../protocol/actions.ts';
import type { StoredCase } from '../store/types.ts';
import type { TapDeps } from './deps.ts';
import type { Reply } from './reply.ts';

/** One submit being settled: the case as read before the claim, and what goes with its first change. */
export interface Settling {
  d: TapDeps;
  c: StoredCase;
  tap: Tap;
  body: SubmitRequest;
  reply: Reply;
  carry: CarriedWrites;
  /** The case in hand is where each change starts; the carried writes go with the first that lands. */
  w: { known: StoredCase; carry: CarriedWrites };
  /** The texts of the action ("Approved", "Approve"). */
  done: string;
  label: string;
}
