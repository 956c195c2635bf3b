/**
 * A fake Slack Socket Mode server: a WebSocket on 127.0.0.1 that @slack/socket-mode reaches through
 * the URL `apps.connections.open` answers on the fake Web API (FakeSlack.useSocket). It behaves as
 * Slack documents: `hello` on connect, envelopes `{envelope_id, type, payload,
 * accepts_response_payload, retry_attempt, retry_reason}`, an `{envelope_id, payload?}` ack
 * expected within 3 s or the envelope is sent again (retry_attempt + 1, on whichever connection is
 * open then), `{"type":"disconnect","reason"}` to make the client reconnect, and sockets that drop.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** Slack sends an envelope up to this many times (the first delivery and three retries). */
export const SLACK_SOCKET_MAX_ATTEMPTS = 4;
/** The ack window Slack gives a Socket Mode app. */
export const SLACK_SOCKET_ACK_WINDOW_MS = 3_000;

/** One acknowledged envelope: what the app answered and how long it took. */
export interface FakeSocketAck {
  envelopeId: string;
  type: string;
  /** The ack's `payload` (slash commands answer here), or undefined. */
  payload: Record<string, unknown> | undefined;
  /** Milliseconds from the last send of the envelope to its ack. */
  ms: number;
  /** How many times the envelope was sent. */
  attempts: number;
}

interface Pending {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  attempts: number;
  sentAt: number;
  /** Ignore (lose) this many acks, then drop the connection: the app handled it, Slack never heard. */
  loseAcks: number;
  timer: NodeJS.Timeout | undefined;
  resolve(ack: FakeSocketAck): void;
  reject(err: Error): void;
}

/** The fake Socket Mode endpoint. */
export class FakeSlackSocket {
  /** Base URL, e.g. ws://127.0.0.1:PORT/link/ */
  url = '';
  /** Every ack received, in order (lost ones included, marked by attempts). */
  readonly acks: FakeSocketAck[] = [];
  /** Connections that completed the handshake (a hello was sent). */
  connections = 0;
  private readonly wss: WebSocketServer;
  private readonly tickets = new Set<string>();
  private readonly sockets = new Set<WebSocket>();
  private current: WebSocket | null = null;
  private readonly pending = new Map<string, Pending>();
  private readonly openWaiters: Array<() => void> = [];

  private constructor(private readonly ackWindowMs: number) {
    this.wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    this.wss.on('connection', (socket, req) => this.onConnection(socket, req.url ?? ''));
  }

  /** Starts the fake on a free loopback port. */
  static async start(options: { ackWindowMs?: number } = {}): Promise<FakeSlackSocket> {
    const fake = new FakeSlackSocket(options.ackWindowMs ?? SLACK_SOCKET_ACK_WINDOW_MS);
    await new Promise<void>((resolve) => fake.wss.once('listening', () => resolve()));
    const { port } = fake.wss.address() as AddressInfo;
    fake.url = `ws://127.0.0.1:${port}/link/`;
    return fake;
  }

  /** A one-time connection URL, as apps.connections.open hands out. */
  connectUrl(): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return `${this.url}?ticket=${ticket}&app_id=A0FAKEAPP`;
  }

  /** True while a connection is open and greeted. */
  get connected(): boolean {
    return this.current !== null && this.current.readyState === this.current.OPEN;
  }

  /** Resolves once a greeted connection is open (at once when one is). */
  async waitConnected(timeoutMs = 10_000): Promise<void> {
    if (this.connected) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('no Socket Mode connection came')),
        timeoutMs,
      );
      this.openWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Sends an envelope and resolves with its ack. Unacknowledged envelopes are sent again after the
   * ack window, or on the next connection if the socket drops. `loseAcks: 1` throws the first ack
   * away and drops the socket, so Slack sends the same payload again after the reconnect.
   */
  deliver(
    type: 'interactive' | 'slash_commands' | 'events_api',
    payload: Record<string, unknown>,
    options: { loseAcks?: number } = {},
  ): Promise<FakeSocketAck> {
    return new Promise((resolve, reject) => {
      const entry: Pending = {
        id: randomUUID(),
        type,
        payload,
        attempts: 0,
        sentAt: 0,
        loseAcks: options.loseAcks ?? 0,
        timer: undefined,
        resolve,
        reject,
      };
      this.pending.set(entry.id, entry);
      this.send(entry);
    });
  }

  /** Asks the client to reconnect, as Slack does before recycling a connection. */
  disconnect(reason: 'refresh_requested' | 'link_disabled' | 'warning'): void {
    this.current?.send(
      JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake' } }),
    );
  }

  /** Drops every connection without a close frame (a network failure). */
  drop(): void {
    this.current = null;
    for (const socket of this.sockets) socket.terminate();
  }

  async close(): Promise<void> {
    for (const entry of this.pending.values()) {
      clearTimeout(entry.timer);
      entry.reject(new Error('fake Socket Mode server closed'));
    }
    this.pending.clear();
    this.drop();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onConnection(socket: WebSocket, path: string): void {
    const ticket = new URL(path, 'http://127.0.0.1').searchParams.get('ticket') ?? '';
    if (!this.tickets.delete(ticket)) {
      socket.close(1008, 'invalid ticket');
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (this.current === socket) this.current = null;
    });
    socket.on('message', (data) => this.onMessage(socket, data.toString()));
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.sockets.size,
        debug_info: { host: 'applink-fake', build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: 'A0FAKEAPP' },
      }),
    );
    this.connections += 1;
    this.current = socket;
    for (const wake of this.openWaiters.splice(0)) wake();
    // Whatever was not acknowledged goes out again on the new connection.
    for (const entry of this.pending.values()) this.send(entry);
  }

  private onMessage(socket: WebSocket, text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    const entry = typeof message.envelope_id === 'string' && this.pending.get(message.envelope_id);
    if (!entry) return;
    if (entry.loseAcks > 0) {
      entry.loseAcks -= 1;
      clearTimeout(entry.timer);
      entry.timer = undefined;
      if (this.current === socket) this.current = null;
      socket.terminate();
      return;
    }
    clearTimeout(entry.timer);
    this.pending.delete(entry.id);
    const ack: FakeSocketAck = {
      envelopeId: entry.id,
      type: entry.type,
      payload:
        message.payload && typeof message.payload === 'object'
          ? (message.payload as Record<string, unknown>)
          : undefined,
      ms: Date.now() - entry.sentAt,
      attempts: entry.attempts,
    };
    this.acks.push(ack);
    entry.resolve(ack);
  }

  private send(entry: Pending): void {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    const socket = this.current;
    if (!socket || socket.readyState !== socket.OPEN) return; // sent on the next hello
    if (entry.attempts >= SLACK_SOCKET_MAX_ATTEMPTS) {
      this.pending.delete(entry.id);
      entry.reject(new Error(`envelope ${entry.id} was never acknowledged`));
      return;
    }
    entry.attempts += 1;
    entry.sentAt = Date.now();
    socket.send(
      JSON.stringify({
        envelope_id: entry.id,
        type: entry.type,
        payload: entry.payload,
        accepts_response_payload: entry.type !== 'events_api',
        retry_attempt: entry.attempts - 1,
        retry_reason: entry.attempts > 1 ? 'timeout' : '',
      }),
    );
    entry.timer = setTimeout(() => this.send(entry), this.ackWindowMs);
  }
}
