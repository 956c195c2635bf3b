/** A TCP gate in front of a loopback server, to play a network outage without touching the server. */
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export interface Gate {
  /** http://127.0.0.1:<gate port> */
  url: string;
  open(): void;
  /** Resets every connection through the gate and refuses new ones (the network is down). */
  shut(): void;
  close(): Promise<void>;
}

/** Starts a gate to `target` (closed unless `startOpen`): while closed, every connection is reset. */
export async function gate(target: string, startOpen = false): Promise<Gate> {
  const to = new URL(target);
  let open = startOpen;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (!open) return void client.destroy();
    const upstream = connect(Number(to.port), to.hostname);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    upstream.on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => {
      open = true;
    },
    shut: () => {
      open = false;
      for (const s of sockets) s.destroy();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
