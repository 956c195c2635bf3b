/**
 * A fake Slack Web API (node:http on 127.0.0.1) for @slack/web-api pointed at it with
 * `slackApiUrl`. It speaks the wire format: POST /api/<method> with a form or JSON body and
 * `Authorization: Bearer <token>`, answers `{ok, ...}` with HTTP 200, and 429 + Retry-After when
 * told to. Every raw request body is recorded for secret scans.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { invalidBlocks, messageProblem } from './slack-blocks.ts';
import { FakeSlackResponseUrls } from './slack-response-url.ts';

/** A message as the fake holds it. */
export interface FakeSlackMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: Record<string, unknown>[];
  /** Legacy attachments (a coloured bar with blocks), as Slack keeps them. */
  attachments: Array<{ color?: string; fallback?: string; blocks: Record<string, unknown>[] }>;
  threadTs?: string;
  /** How many times chat.update changed it. */
  edits: number;
}

/** An ephemeral message, shown to one user in one channel. */
export interface FakeSlackEphemeral {
  channel: string;
  user: string;
  text: string;
  /** Index of the request that delivered it, in `requests`. */
  seq: number;
}

/** One request the fake received. */
export interface FakeSlackRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body's fields (form fields, JSON-string values of blocks parsed). */
  fields: Record<string, unknown>;
  at: number;
}

/** A workspace member users.info knows. */
export interface FakeSlackUser {
  id: string;
  name: string;
  realName?: string;
  displayName?: string;
}

export interface FakeSlackOptions {
  botToken: string;
  /** The app-level token ("xapp-...") apps.connections.open accepts (Socket Mode). */
  appToken?: string;
  teamId?: string;
  botId?: string;
  botUserId?: string;
}

type Answer = { status?: number; headers?: Record<string, string>; json: Record<string, unknown> };

/** The fake Slack Web API. */
export class FakeSlack {
  /** Base URL for `slackApiUrl`, ending in "/api/". */
  apiUrl = '';
  readonly requests: FakeSlackRequest[] = [];
  readonly ephemerals: FakeSlackEphemeral[] = [];
  /** What the app posted to interactions' response_urls. */
  readonly responseUrls = new FakeSlackResponseUrls();
  /** Every modal opened with views.open, oldest first. */
  readonly views: Array<Record<string, unknown>> = [];
  readonly teamId: string;
  readonly botId: string;
  readonly botUserId: string;
  private readonly server: Server;
  private readonly channels = new Map<string, FakeSlackMessage[]>();
  private readonly users = new Map<string, FakeSlackUser>();
  private readonly rateLimits = new Map<string, { times: number; retryAfterSec: number }>();
  private readonly failures = new Map<string, { times: number; error: string }>();
  private seq = 0;
  private socket: { connectUrl(): string } | undefined;
  private limiter: ((method: string, fields: Record<string, unknown>) => number | null) | undefined;
  /** Channels the bot was removed from, and archived channels (Slack's errors for each). */
  private readonly removed = new Set<string>();
  private readonly archived = new Set<string>();

  private constructor(private readonly options: FakeSlackOptions) {
    this.teamId = options.teamId ?? 'T0FAKE';
    this.botId = options.botId ?? 'B0FAKEBOT';
    this.botUserId = options.botUserId ?? 'U0FAKEBOT';
    this.server = createServer((req, res) => void this.serve(req, res));
  }

  /** Starts a fake on 127.0.0.1, port 0. */
  static async start(options: FakeSlackOptions): Promise<FakeSlack> {
    const fake = new FakeSlack(options);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    const { port } = fake.server.address() as AddressInfo;
    fake.apiUrl = `http://127.0.0.1:${port}/api/`;
    return fake;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Socket Mode: apps.connections.open answers this server's connection URLs. */
  useSocket(socket: { connectUrl(): string }): void {
    this.socket = socket;
  }

  /** A person deletes a message: chat.update then answers message_not_found. */
  deleteMessage(channel: string, ts: string): void {
    const list = this.channels.get(channel) ?? [];
    this.channels.set(
      channel,
      list.filter((m) => m.ts !== ts),
    );
  }

  /** The bot is removed from a channel: posts and edits there answer not_in_channel. */
  removeBot(channel: string): void {
    this.removed.add(channel);
  }

  /** The channel is archived: posts and edits there answer is_archived. */
  archiveChannel(channel: string): void {
    this.archived.add(channel);
  }

  addUser(user: FakeSlackUser): void {
    this.users.set(user.id, user);
  }

  /** The next `times` calls of `method` get HTTP 429 with `Retry-After: retryAfterSec`. */
  rateLimit(method: string, times: number, retryAfterSec: number): void {
    this.rateLimits.set(method, { times, retryAfterSec });
  }

  /**
   * Enforces rate limits (the pacing benchmark): `decide` returns Retry-After seconds to answer
   * 429 like Slack, or null to let the call through.
   */
  setLimiter(decide: (method: string, fields: Record<string, unknown>) => number | null): void {
    this.limiter = decide;
  }

  /** The next `times` calls of `method` answer `{ok:false, error}`. */
  fail(method: string, error: string, times = 1): void {
    this.failures.set(method, { times, error });
  }

  /** Messages in `channel` (top-level and thread replies), in posting order. */
  messages(channel: string): FakeSlackMessage[] {
    return [...(this.channels.get(channel) ?? [])];
  }

  message(channel: string, ts: string): FakeSlackMessage | undefined {
    return this.channels.get(channel)?.find((m) => m.ts === ts);
  }

  /** Requests for one Web API method. */
  calls(method: string): FakeSlackRequest[] {
    return this.requests.filter((r) => r.method === method);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (this.responseUrls.handles(req.url)) return this.responseUrls.serve(req.url!, body, res);
    const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
    const fields = parseFields(body, String(req.headers['content-type'] ?? ''));
    this.requests.push({ method, headers: req.headers, body, fields, at: Date.now() });
    const answer = this.answer(method, fields, req.headers.authorization);
    res.writeHead(answer.status ?? 200, {
      'content-type': 'application/json; charset=utf-8',
      ...answer.headers,
    });
    res.end(JSON.stringify(answer.json));
  }

  private answer(method: string, f: Record<string, unknown>, authorization?: string): Answer {
    const limit = this.rateLimits.get(method);
    if (limit && limit.times > 0) {
      limit.times -= 1;
      return {
        status: 429,
        headers: { 'retry-after': String(limit.retryAfterSec) },
        json: { ok: false, error: 'ratelimited' },
      };
    }
    const retryAfter = this.limiter?.(method, f);
    if (typeof retryAfter === 'number') {
      return {
        status: 429,
        headers: { 'retry-after': String(retryAfter) },
        json: { ok: false, error: 'ratelimited' },
      };
    }
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : f.token;
    if (!token) return { json: { ok: false, error: 'not_authed' } };
    // apps.connections.open takes the app-level token only; every other method the bot token.
    const expected =
      method === 'apps.connections.open' ? this.options.appToken : this.options.botToken;
    if (token !== expected) {
      const wrongKind =
        token === this.options.appToken || token === this.options.botToken
          ? 'not_allowed_token_type'
          : 'invalid_auth';
      return { json: { ok: false, error: wrongKind } };
    }
    const failure = this.failures.get(method);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      return { json: { ok: false, error: failure.error } };
    }
    if (method === 'apps.connections.open') {
      if (!this.socket) return { json: { ok: false, error: 'socket_mode_disabled' } };
      return { json: { ok: true, url: this.socket.connectUrl() } };
    }
    const channel = typeof f.channel === 'string' ? f.channel : '';
    if (method.startsWith('chat.') && this.archived.has(channel))
      return { json: { ok: false, error: 'is_archived' } };
    if (method.startsWith('chat.') && this.removed.has(channel))
      return { json: { ok: false, error: 'not_in_channel' } };
    switch (method) {
      case 'auth.test':
        return {
          json: {
            ok: true,
            url: 'https://fake.slack.test/',
            team: 'Fake',
            user: 'hitl',
            team_id: this.teamId,
            user_id: this.botUserId,
            bot_id: this.botId,
          },
        };
      case 'chat.postMessage':
        return this.postMessage(f);
      case 'chat.update':
        return this.update(f);
      case 'chat.postEphemeral': {
        const { channel, user, text } = f;
        if (typeof channel !== 'string' || typeof user !== 'string' || typeof text !== 'string') {
          return { json: { ok: false, error: 'invalid_arguments' } };
        }
        this.ephemerals.push({ channel, user, text, seq: this.requests.length - 1 });
        return { json: { ok: true, message_ts: this.nextTs() } };
      }
      case 'views.open': {
        // Slack wants a trigger_id (valid 3 s) and a modal of at most 100 blocks.
        const view = typeof f.view === 'string' ? (JSON.parse(f.view) as unknown) : f.view;
        const v = view as { type?: unknown; blocks?: unknown; callback_id?: unknown } | undefined;
        if (typeof f.trigger_id !== 'string' || !f.trigger_id)
          return { json: { ok: false, error: 'invalid_trigger_id' } };
        if (v?.type !== 'modal' || !Array.isArray(v.blocks) || v.blocks.length > 100)
          return { json: { ok: false, error: 'invalid_arguments' } };
        this.views.push(view as Record<string, unknown>);
        return { json: { ok: true, view: { id: `V0${this.views.length}`, ...(view as object) } } };
      }
      case 'chat.getPermalink': {
        // Slack's answer: { ok, channel, permalink }; a message it does not have is message_not_found.
        const ts = typeof f.message_ts === 'string' ? f.message_ts : '';
        if (!this.messages(channel).some((m) => m.ts === ts))
          return { json: { ok: false, error: 'message_not_found' } };
        const permalink = `https://fake.slack.test/archives/${channel}/p${ts.replace('.', '')}`;
        return { json: { ok: true, channel, permalink } };
      }
      case 'users.info': {
        const user = typeof f.user === 'string' ? this.users.get(f.user) : undefined;
        if (!user) return { json: { ok: false, error: 'user_not_found' } };
        const profile = { display_name: user.displayName ?? '', real_name: user.realName ?? '' };
        return {
          json: {
            ok: true,
            user: {
              id: user.id,
              team_id: this.teamId,
              name: user.name,
              real_name: user.realName,
              profile,
            },
          },
        };
      }
      default:
        return { json: { ok: false, error: 'unknown_method' } };
    }
  }

  private postMessage(f: Record<string, unknown>): Answer {
    const channel = f.channel;
    if (typeof channel !== 'string' || !channel)
      return { json: { ok: false, error: 'channel_not_found' } };
    const text = typeof f.text === 'string' ? f.text : '';
    const blocks = f.blocks === undefined ? [] : f.blocks;
    if (!text && (!Array.isArray(blocks) || blocks.length === 0)) {
      return { json: { ok: false, error: 'no_text' } };
    }
    if (text.length > 40_000) return { json: { ok: false, error: 'msg_too_long' } };
    const problem = messageProblem(blocks, f.attachments);
    if (problem) return { json: invalidBlocks(problem) };
    const message: FakeSlackMessage = {
      channel,
      ts: this.nextTs(),
      text,
      blocks: withBlockIds(blocks as Record<string, unknown>[]),
      attachments: (f.attachments as FakeSlackMessage['attachments'] | undefined) ?? [],
      ...(typeof f.thread_ts === 'string' ? { threadTs: f.thread_ts } : {}),
      edits: 0,
    };
    const list = this.channels.get(channel) ?? [];
    list.push(message);
    this.channels.set(channel, list);
    return { json: { ok: true, channel, ts: message.ts, message: this.asSlack(message) } };
  }

  private update(f: Record<string, unknown>): Answer {
    if (typeof f.channel !== 'string' || typeof f.ts !== 'string') {
      return { json: { ok: false, error: 'invalid_arguments' } };
    }
    const message = this.message(f.channel, f.ts);
    if (!message) return { json: { ok: false, error: 'message_not_found' } };
    const blocks = f.blocks === undefined ? message.blocks : f.blocks;
    const problem = messageProblem(blocks, f.attachments);
    if (problem) return { json: invalidBlocks(problem) };
    if (typeof f.text === 'string') message.text = f.text;
    // chat.update keeps the attachments it is not given new ones for.
    if (f.attachments !== undefined)
      message.attachments = f.attachments as FakeSlackMessage['attachments'];
    message.blocks = withBlockIds(blocks as Record<string, unknown>[]);
    message.edits += 1;
    return { json: { ok: true, channel: message.channel, ts: message.ts, text: message.text } };
  }

  /** The message as Slack reports it (in API answers and interaction payloads). */
  asSlack(message: FakeSlackMessage): Record<string, unknown> {
    return {
      type: 'message',
      subtype: 'bot_message',
      user: this.botUserId,
      bot_id: this.botId,
      team: this.teamId,
      text: message.text,
      ts: message.ts,
      ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      blocks: message.blocks,
      ...(message.attachments.length ? { attachments: message.attachments } : {}),
    };
  }

  private nextTs(): string {
    this.seq += 1;
    return `${Math.floor(Date.now() / 1000)}.${String(this.seq).padStart(6, '0')}`;
  }
}

/** Reads a web-api request body: form fields (object values arrive as JSON strings) or JSON. */
function parseFields(body: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json')) {
    try {
      return JSON.parse(body) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  const fields: Record<string, unknown> = Object.fromEntries(new URLSearchParams(body));
  for (const key of ['blocks', 'attachments', 'metadata']) {
    if (typeof fields[key] === 'string') {
      try {
        fields[key] = JSON.parse(fields[key]);
      } catch {
        // Slack would refuse it; keep the string so the block check fails.
      }
    }
  }
  return fields;
}

/** Slack gives every block a block_id when the app sent none. */
function withBlockIds(blocks: Record<string, unknown>[]): Record<string, unknown>[] {
  return blocks.map((block, i) =>
    block.block_id
      ? block
      : { ...block, block_id: `b${i}${Math.random().toString(36).slice(2, 6)}` },
  );
}
