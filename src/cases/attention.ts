/**
 * The seam for telling a person's own devices (a phone's lock screen through Web Push, say) about a
 * case, beside the cards in the chats. The chat side (card notes, replies) is done by the watchers
 * themselves; an implementation of this interface adds per-person channels. None is wired by
 * default: the relay then tells only the chats.
 */
import type { StoredCase } from '../store/types.ts';

/** A warning that a case expires soon: its threshold and the expiry it counts to. */
export interface ExpiringNotice {
  /** The threshold reached, seconds before expiry. */
  before_s: number;
  /** The case's expires_at (ISO). */
  expires_at: string;
}

/** Per-person channels the relay tells about cases (a case's targets are told on their cards). */
export interface PersonAlerts {
  /** A case expires soon and nobody has decided. Failures are the implementation's to record. */
  expiring(c: StoredCase, notice: ExpiringNotice): Promise<void>;
}
