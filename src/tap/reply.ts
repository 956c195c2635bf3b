/** The reply to a tap: a short text in the configured language and the card as it stands. */
import type { TapOutcome, TapReply } from '../adapter.ts';
import { t } from '../render/templates.ts';
import type { StoredCase } from '../store/types.ts';
import type { TapDeps } from './deps.ts';

/** Builds the reply for `outcome`; `current` is the case as the caller holds it (else it is read). */
export type Reply = (
  outcome: TapOutcome,
  view?: Record<string, unknown>,
  current?: StoredCase,
) => Promise<TapReply>;

/** The reply builder for taps on `c` (undefined: no such case, so no card). */
export function replier(
  d: Pick<TapDeps, 'strings' | 'store' | 'render'>,
  c: StoredCase | undefined,
): Reply {
  return async (outcome, view = {}, current) => {
    const now = current ?? (c ? await d.store.getCase(c.id) : undefined);
    return {
      outcome,
      text: t(d.strings, `reply.${outcome}`, view).slice(0, 200),
      card: now ? await d.render.cardOf(now) : null,
    };
  };
}
