/**
 * A fake Discord gateway (v10, JSON encoding, no compression) on 127.0.0.1 for discord.js /
 * @discordjs/ws, reached through `GET /gateway/bot` on the fake REST API (FakeDiscord.useGateway).
 * It speaks the documented protocol: op 10 HELLO, op 1 heartbeats answered with op 11 ACK, op 2
 * IDENTIFY answered with the READY dispatch, op 6 RESUME answered by replaying the dispatches the
 * client missed and RESUMED, op 7 RECONNECT, op 9 INVALID_SESSION; dispatches carry `s`. A session
 * outlives its connection, so dispatches sent while the socket is down are replayed on RESUME.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** Gateway opcodes used here (Discord's numbers). */
export const GatewayOp = {
  dispatch: 0,
  heartbeat: 1,
  identify: 2,
  resume: 6,
  reconnect: 7,
  invalidSession: 9,
  hello: 10,
  heartbeatAck: 11,
} as const;

interface Dispatch {
  op: 0;
  t: string;
  s: number;
  d: unknown;
}

interface Session {
  id: string;
  seq: number;
  events: Dispatch[];
  socket: WebSocket | null;
  valid: boolean;
}

/** The fake gateway. */
export class FakeDiscordGateway {
  /** ws:// base URL, as `/gateway/bot` and READY's resume_gateway_url give it. */
  url = '';
  connections = 0;
  identifies = 0;
  resumes = 0;
  heartbeats = 0;
  /** Query strings clients connected with (v, encoding, compress). */
  readonly connectQueries: string[] = [];
  /** On the next RESUME, also replay this many dispatches the client already had (duplicates). */
  replayOverlap = 0;
  private readonly wss: WebSocketServer;
  private session: Session | null = null;
  private readonly sockets = new Set<WebSocket>();
  private readonly readyWaiters: Array<() => void> = [];

  private constructor(
    private readonly options: { token: string; applicationId: string; heartbeatIntervalMs: number },
  ) {
    this.wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    this.wss.on('connection', (socket, req) => this.onConnection(socket, req.url ?? '/'));
  }

  static async start(options: {
    token: string;
    applicationId: string;
    heartbeatIntervalMs?: number;
  }): Promise<FakeDiscordGateway> {
    const gateway = new FakeDiscordGateway({
      heartbeatIntervalMs: 41_250,
      ...options,
    });
    await new Promise<void>((resolve) => gateway.wss.once('listening', () => resolve()));
    const { port } = gateway.wss.address() as AddressInfo;
    gateway.url = `ws://127.0.0.1:${port}`;
    return gateway;
  }

  /** True while the session has an open, identified or resumed socket. */
  get live(): boolean {
    const socket = this.session?.socket;
    return Boolean(socket && socket.readyState === socket.OPEN);
  }

  /** Resolves when the session is live again (at once when it is). */
  async waitLive(timeoutMs = 15_000): Promise<void> {
    if (this.live) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the gateway session never came back')),
        timeoutMs,
      );
      this.readyWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Sends a dispatch to the session (buffered for RESUME while its socket is down). Returns `s`. */
  dispatch(t: string, d: unknown): number {
    const session = this.session;
    if (!session) throw new Error('no gateway session: the client never identified');
    session.seq += 1;
    const event: Dispatch = { op: 0, t, s: session.seq, d };
    session.events.push(event);
    this.sendTo(session.socket, event);
    return event.s;
  }

  /** Drops the session's socket without a close frame (a network failure). */
  drop(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  /** op 7: asks the client to reconnect and resume. */
  reconnect(): void {
    this.sendTo(this.session?.socket ?? null, { op: GatewayOp.reconnect, d: null });
  }

  /** op 9: the session is invalid; `resumable` says whether the client may resume it. */
  invalidateSession(resumable: boolean): void {
    const session = this.session;
    if (!session) return;
    if (!resumable) session.valid = false;
    this.sendTo(session.socket, { op: GatewayOp.invalidSession, d: resumable });
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private sendTo(socket: WebSocket | null, payload: unknown): void {
    if (socket && socket.readyState === socket.OPEN) socket.send(JSON.stringify(payload));
  }

  private onConnection(socket: WebSocket, path: string): void {
    const query = new URL(path, 'http://127.0.0.1').searchParams;
    this.connectQueries.push(query.toString());
    if (query.get('v') !== '10') {
      socket.close(4012, 'Invalid API version');
      return;
    }
    if (query.get('encoding') !== 'json') {
      socket.close(4002, 'Decode error');
      return;
    }
    this.connections += 1;
    this.sockets.add(socket);
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (this.session?.socket === socket) this.session.socket = null;
    });
    socket.on('message', (data) => this.onMessage(socket, data.toString()));
    this.sendTo(socket, {
      op: GatewayOp.hello,
      d: { heartbeat_interval: this.options.heartbeatIntervalMs },
    });
  }

  private onMessage(socket: WebSocket, text: string): void {
    let payload: { op?: unknown; d?: any };
    try {
      payload = JSON.parse(text) as typeof payload;
    } catch {
      socket.close(4002, 'Decode error');
      return;
    }
    switch (payload.op) {
      case GatewayOp.heartbeat:
        this.heartbeats += 1;
        {
          this.sendTo(socket, { op: GatewayOp.heartbeatAck });
          return;
        }
      case GatewayOp.identify: {
        this.identify(socket, payload.d);
        return;
      }
      case GatewayOp.resume: {
        this.resume(socket, payload.d);
        return;
      }
      default: {
        socket.close(4001, 'Unknown opcode');
        return;
      }
    }
  }

  private identify(socket: WebSocket, d: { token?: unknown; intents?: unknown }): void {
    if (d?.token !== this.options.token) {
      socket.close(4004, 'Authentication failed');
      return;
    }
    if (typeof d.intents !== 'number') {
      socket.close(4013, 'Invalid intent(s)');
      return;
    }
    this.identifies += 1;
    const old = this.session?.socket;
    if (old && old !== socket) old.terminate();
    this.session = {
      id: randomBytes(16).toString('hex'),
      seq: 0,
      events: [],
      socket,
      valid: true,
    };
    this.dispatch('READY', {
      v: 10,
      user: {
        id: this.options.applicationId,
        username: 'hitl-relay',
        discriminator: '0',
        global_name: null,
        avatar: null,
        bot: true,
        flags: 0,
      },
      guilds: [],
      session_id: this.session.id,
      resume_gateway_url: this.url,
      shard: [0, 1],
      application: { id: this.options.applicationId, flags: 0 },
    });
    this.wakeReady();
  }

  private resume(
    socket: WebSocket,
    d: { token?: unknown; session_id?: unknown; seq?: unknown },
  ): void {
    if (d?.token !== this.options.token) {
      socket.close(4004, 'Authentication failed');
      return;
    }
    const session = this.session;
    if (!session?.valid || session.id !== d.session_id || typeof d.seq !== 'number') {
      this.sendTo(socket, { op: GatewayOp.invalidSession, d: false });
      return;
    }
    this.resumes += 1;
    session.socket = socket;
    const from = d.seq - this.replayOverlap;
    this.replayOverlap = 0;
    for (const event of session.events) if (event.s > from) this.sendTo(socket, event);
    this.dispatch('RESUMED', {});
    this.wakeReady();
  }

  private wakeReady(): void {
    for (const wake of this.readyWaiters.splice(0)) wake();
  }
}
