/**
 * One room of the relay's web chat as a person sees it (the web adapter's own HTTP API): its
 * messages, the cards of a question, and a tap on a card's button as a signed-in person.
 */
import { request } from 'undici';
import { expect } from 'vitest';
import { eventually } from './relay-env.ts';

/** The room `room` of the relay now at `url()` (a restarted relay may move). */
export function webRoom(url: () => string, room: string) {
  const messages = async () =>
    (await (await request(`${url()}/web/api/rooms/${room}/messages`)).body.json()) as any[];
  /** The cards whose text holds `text`, final ones included. */
  const cards = async (text: string) =>
    (await messages()).filter((m) => m.case && JSON.stringify(m).includes(text));
  return {
    messages,
    cards,
    /** The first open card holding `text` (one not of a case in `not`), once it is posted. */
    openCard: (text: string, not = new Set<string>(), timeoutMs = 10_000) =>
      eventually(
        async () => (await cards(text)).find((m) => !m.final && !not.has(m.case)),
        timeoutMs,
        `a card with "${text}"`,
      ),
    /** Taps `action` on card `m` as Ann (with the form's `data`); the relay must have submitted it. */
    async tap(m: { id: string }, action = 'confirm', data?: unknown) {
      const r = await request(`${url()}/web/api/rooms/${room}/messages/${m.id}/actions/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          user: { id: 'ann', name: 'Ann' },
          ...(data !== undefined && { data }),
        }),
      });
      expect(((await r.body.json()) as any).outcome).toBe('submitted');
    },
  };
}
