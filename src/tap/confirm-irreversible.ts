/**
 * Step 3 of a tap: an irreversible answer takes two taps. The first shows the warning; the
 * confirming tap counts only once the person has had time to read it. A double-click (or two
 * racing requests) is one tap, not a confirmation.
 */
import type { Tap } from '../adapter.ts';
import { t as text } from '../render/templates.ts';
import type { ResolvedTap, Stop, TapDeps } from './deps.ts';
import { refusal } from './deps.ts';

/** How long a first tap on an irreversible action waits for its confirming second tap. */
const CONFIRM_MS = 60_000;
/** The least time between the warning and a tap that confirms it (a double-click is faster). */
export const CONFIRM_MIN_MS = 1_000;

/** Null when the tap may go on (reversible, confirmed natively, or the confirming tap), else the stop. */
export async function confirmStep(
  d: Pick<TapDeps, 'store' | 'now' | 'strings'>,
  t: ResolvedTap,
  tap: Tap,
  irreversible: boolean,
): Promise<Stop | null> {
  if (!irreversible || tap.confirmed) return null;
  const label = text(d.strings, `action.${tap.action}`);
  const key = `confirm:${t.c.id}:${tap.platform}:${tap.user.id}:${tap.action}`;
  const at = d.now();
  if (await d.store.kv.setIfAbsent(key, String(at), CONFIRM_MS))
    return {
      outcome: 'confirm_required',
      view: { label },
      row: { kind: 'tap_confirm_asked', detail: t.who },
    };
  const asked = Number(await d.store.kv.get(key));
  if (!Number.isFinite(asked) || at - asked < CONFIRM_MIN_MS)
    return refusal(t, 'confirmed too soon', 'confirm_required', { label });
  await d.store.kv.delete(key);
  return null;
}
