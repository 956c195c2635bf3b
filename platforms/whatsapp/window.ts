/**
 * The 24-hour customer-service window: free-form and interactive messages reach a person only
 * within 24 hours of their last message to the business; after that only an approved template
 * does. The relay learns of each message from the webhook and keeps its time in the shared
 * key-value store (every replica sees it), with the window's length as the entry's lifetime.
 */
import type { KeyValue } from '../../src/adapter.ts';

export const WINDOW_MS = 24 * 60 * 60 * 1000;
/** Treated as closed a minute early: a card sent at 23:59:59 may arrive after the window. */
const MARGIN_MS = 60_000;

function key(phoneId: string, waId: string): string {
  return `whatsapp:window:${phoneId}:${waId}`;
}

/** True while the person's last message is less than 24 hours old. */
export async function windowOpen(
  kv: KeyValue,
  phoneId: string,
  waId: string,
  now: number,
): Promise<boolean> {
  const last = Number(await kv.get(key(phoneId, waId)));
  return Number.isFinite(last) && now - last < WINDOW_MS - MARGIN_MS;
}

/** The person wrote at `at` (WhatsApp's time, never later than now): the window runs from then. */
export async function openWindow(
  kv: KeyValue,
  phoneId: string,
  waId: string,
  at: number,
  now: number,
): Promise<void> {
  const since = Math.min(at || now, now);
  const current = Number(await kv.get(key(phoneId, waId)));
  if (Number.isFinite(current) && current >= since) return;
  const left = WINDOW_MS - (now - since);
  if (left > 0) await kv.set(key(phoneId, waId), String(since), left);
}

/** WhatsApp said the window is closed (error 131047): forget what we thought. */
export function closeWindow(kv: KeyValue, phoneId: string, waId: string): Promise<void> {
  return kv.delete(key(phoneId, waId));
}
