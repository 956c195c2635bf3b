/** The web chat's JSON API as a person's browser uses it: read a room, tap a button. */
import { request } from 'undici';

/** Every response body read through these helpers (for secret scans). */
export const webResponses: string[] = [];

/** The messages of a web chat room. */
export async function roomMessages(relayUrl: string, room: string): Promise<any[]> {
  const res = await request(`${relayUrl}/web/api/rooms/${room}/messages`);
  const text = await res.body.text();
  webResponses.push(text);
  return JSON.parse(text);
}

/** Taps a button of a web chat message; returns the HTTP status and the JSON answer. */
export async function tapWeb(
  relayUrl: string,
  room: string,
  messageId: string,
  action: string,
  user: { id: string; name?: string } = { id: 'ann', name: 'Ann' },
): Promise<{ status: number; body: any }> {
  const res = await request(
    `${relayUrl}/web/api/rooms/${room}/messages/${messageId}/actions/${action}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user }),
    },
  );
  const text = await res.body.text();
  webResponses.push(text);
  return { status: res.statusCode, body: JSON.parse(text) };
}

/** The one card of a case in a room (undefined before it is posted). */
export async function cardOf(relayUrl: string, room: string, caseId: string): Promise<any> {
  return (await roomMessages(relayUrl, room)).find((m) => m.case === caseId);
}
