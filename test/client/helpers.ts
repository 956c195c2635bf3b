/** The reviewer's side for client tests: read a web chat room, tap a button, run a tiny HTTP service. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { eventually } from '../helpers/relay-env.ts';

/** The messages of a web chat room. */
export async function roomMessages(relayUrl: string, room: string): Promise<any[]> {
  const res = await request(`${relayUrl}/web/api/rooms/${room}/messages`);
  return (await res.body.json()) as any[];
}

/** Waits for the card of `caseFilter` in `room`, then taps `action` as Ann; returns the tap reply. */
export async function tapWhenPosted(
  relayUrl: string,
  room: string,
  action: string,
  caseFilter: (m: any) => boolean = () => true,
): Promise<any> {
  const m = await eventually(
    async () =>
      (await roomMessages(relayUrl, room)).find(
        (x) => caseFilter(x) && !x.final && x.actions.some((a: any) => a.action === action),
      ),
    10_000,
    `a card with ${action} in ${room}`,
  );
  const res = await request(
    `${relayUrl}/web/api/rooms/${room}/messages/${m.id}/actions/${action}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
    },
  );
  return res.body.json();
}

/** A small HTTP server on loopback; `handle` answers each request (body read into `body`). */
export async function tinyServer(
  handle: (req: IncomingMessage, body: Buffer, res: ServerResponse) => unknown,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => void handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
