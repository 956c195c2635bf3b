/** Step 1 of a tap: the case its key names and the target (chat) it was tapped in. */
import type { Tap } from '../adapter.ts';
import type { StoredCase } from '../store/types.ts';
import type { ResolvedTap, TapDeps } from './deps.ts';

/** The tap's case and target; `c` alone when the case exists but was never posted to this platform. */
export async function resolveTap(
  d: Pick<TapDeps, 'store'>,
  tap: Tap,
): Promise<{ c?: StoredCase; resolved?: ResolvedTap }> {
  const c = await d.store.getCaseByKey(tap.key);
  if (!c) return {};
  const messages = await d.store.listMessages(c.id);
  const target =
    (tap.ref &&
      messages.find((m) => m.platform === tap.platform && m.ref_id === tap.ref?.id)?.target) ??
    messages.find((m) => m.platform === tap.platform)?.target;
  if (!target) return { c };
  const who = {
    platform: tap.platform,
    target,
    user: tap.user.id,
    ...(tap.user.name ? { name: tap.user.name.slice(0, 128) } : {}),
    action: tap.action,
  };
  return { c, resolved: { c, target, who } };
}
