/**
 * A fake Discord REST API (v10) on 127.0.0.1 for @discordjs/rest / discord.js (`api` option =
 * `${fake.apiUrl}`). It speaks the real wire format for what hitl-relay uses: create and edit
 * channel messages, interaction callbacks, interaction follow-ups and command registration; checks
 * `Authorization: Bot <token>` where Discord does; injects 429s with Discord's body and headers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FakeDiscordMessage, FakeMessageStore, fakeSnowflake } from './discord-api-store.ts';
import { modalProblem } from './discord-modal-rules.ts';

export { type FakeActionRow, type FakeDiscordMessage, fakeSnowflake } from './discord-api-store.ts';

/** One request the fake received. */
export interface FakeDiscordRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

/** An interaction the test created, so callbacks know which message they answer. */
interface FakeInteraction {
  id: string;
  token: string;
  channelId: string;
  messageId: string | null;
  /** The callback type it was answered with, once answered. */
  answeredWith: number | null;
  /** When the test registered it (Discord created it), and how long the first answer took. */
  createdAt: number;
  answeredAfterMs: number | null;
  followUps: string[];
}

/** A pending 429 injection. */
export interface RateLimitInjection {
  /** Seconds, as Discord sends them (the header may be fractional here to keep tests quick). */
  retryAfter: number;
  global?: boolean;
  /** Only requests whose method + path match, e.g. /^PATCH \/channels\//. Any when absent. */
  match?: RegExp;
}

/** What a rate limiter says about one request. */
export interface DiscordLimitDecision {
  headers: Record<string, string>;
  /** Answer 429 with this retry_after (seconds). */
  retryAfter?: number;
  global?: boolean;
}

/** The running fake. */
export interface FakeDiscord {
  /** Pass as @discordjs/rest's `api` option (the fake serves `${apiUrl}/v10/...`). */
  apiUrl: string;
  messages(channelId: string): FakeDiscordMessage[];
  message(channelId: string, messageId: string): FakeDiscordMessage | undefined;
  /** Registers an interaction the test is about to deliver (its message, for type 7 answers). */
  registerInteraction(i: {
    id: string;
    token: string;
    channelId: string;
    messageId: string | null;
  }): void;
  /** Applies an interaction response exactly as a callback would (HTTP mode answers come back to the test). */
  applyInteractionResponse(
    id: string,
    token: string,
    response: unknown,
  ): { status: number; body: unknown };
  /** Ephemeral follow-up contents sent for an interaction token. */
  followUps(token: string): string[];
  /** The type an interaction was answered with, or null. */
  answeredWith(token: string): number | null;
  /** Milliseconds from registering an interaction to its first answer, or null. */
  answeredAfterMs(token: string): number | null;
  /** Gateway mode: `GET /gateway/bot` hands out this gateway's URL. */
  useGateway(gateway: { url: string }): void;
  /** The last registered command set, per application (or application/guild). */
  commands(key: string): unknown[] | undefined;
  /** A person deletes a message: edits answer 404 Unknown Message (10008). */
  deleteMessage(channelId: string, messageId: string): void;
  /** The bot loses the channel (removed, or the channel made private): 403 Missing Access (50001). */
  removeBot(channelId: string): void;
  /**
   * Enforces rate limits (the pacing benchmark): `decide` sees each request and returns the
   * X-RateLimit headers to send, and `retryAfter` (seconds) to answer 429 instead.
   */
  setLimiter(decide: (method: string, route: string, body: string) => DiscordLimitDecision): void;
  /** Makes the next `count` matching requests answer 429. */
  rateLimitNext(count: number, injection: RateLimitInjection): void;
  requests(): FakeDiscordRequest[];
  close(): Promise<void>;
}

const BUCKET_HEADERS = {
  'x-ratelimit-limit': '5',
  'x-ratelimit-remaining': '4',
  'x-ratelimit-reset-after': '1',
  'x-ratelimit-bucket': 'fakebucket0000',
};

/** Starts the fake. `token` is the bot token it accepts; `applicationId` the app it serves. */
export async function startFakeDiscord(options: {
  token: string;
  applicationId: string;
}): Promise<FakeDiscord> {
  const interactions = new Map<string, FakeInteraction>();
  const commandSets = new Map<string, unknown[]>();
  const log: FakeDiscordRequest[] = [];
  const injections: Array<RateLimitInjection & { left: number }> = [];

  const store = new FakeMessageStore(options.applicationId);
  let gateway: { url: string } | null = null;
  const removed = new Set<string>();
  let limiter: ((method: string, route: string, body: string) => DiscordLimitDecision) | null =
    null;

  const applyInteractionResponse = (id: string, token: string, response: unknown) => {
    const interaction = interactions.get(token);
    if (!interaction || interaction.id !== id) {
      return { status: 404, body: { message: 'Unknown interaction', code: 10062 } };
    }
    if (interaction.answeredWith !== null) {
      return {
        status: 400,
        body: { message: 'Interaction has already been acknowledged.', code: 40060 },
      };
    }
    const r = (response ?? {}) as { type?: number; data?: Record<string, unknown> };
    if (![1, 4, 5, 6, 7, 8, 9].includes(r.type ?? 0)) {
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    }
    if (r.type === 9 && modalProblem(r.data)) {
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    }
    interaction.answeredWith = r.type!;
    interaction.answeredAfterMs = Date.now() - interaction.createdAt;
    if (r.type === 7 && interaction.messageId) {
      const message = store.find(interaction.channelId, interaction.messageId);
      if (message) {
        store.edit(message, r.data ?? {});
        message.edits += 1;
      }
    }
    if (r.type === 4 && typeof r.data?.content === 'string')
      interaction.followUps.push(r.data.content);
    return { status: 204, body: undefined };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = req.method ?? 'GET';
      log.push({ method, path: url.pathname, authorization: req.headers.authorization, body: raw });
      let limitHeaders: Record<string, string> = {};
      const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        const text = body === undefined ? '' : JSON.stringify(body);
        res.writeHead(status, {
          ...BUCKET_HEADERS,
          ...limitHeaders,
          ...(text ? { 'content-type': 'application/json' } : {}),
          ...headers,
        });
        res.end(text);
      };

      const route = url.pathname.replace(/^\/api\/v10/, '');
      if (route === url.pathname) return send(404, { message: '404: Not Found', code: 0 });

      const injection = injections.find(
        (i) => i.left > 0 && (!i.match || i.match.test(`${method} ${route}`)),
      );
      if (injection) {
        injection.left -= 1;
        const headers: Record<string, string> = {
          'retry-after': String(injection.retryAfter),
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': String(injection.retryAfter),
          'x-ratelimit-bucket': 'fakebucket0000',
          'x-ratelimit-scope': injection.global ? 'global' : 'user',
        };
        if (injection.global) headers['x-ratelimit-global'] = 'true';
        return send(
          429,
          {
            message: 'You are being rate limited.',
            retry_after: injection.retryAfter,
            global: Boolean(injection.global),
          },
          headers,
        );
      }

      // Limits are counted only for requests the injected 429s let through.
      if (limiter) {
        const decision = limiter(method, route, raw);
        limitHeaders = decision.headers;
        if (decision.retryAfter !== undefined) {
          return send(
            429,
            {
              message: 'You are being rate limited.',
              retry_after: decision.retryAfter,
              global: Boolean(decision.global),
            },
            {
              'retry-after': String(Math.ceil(decision.retryAfter)),
              ...(decision.global ? { 'x-ratelimit-global': 'true' } : {}),
            },
          );
        }
      }
      let body: Record<string, unknown> = {};
      if (raw) {
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          return send(400, { message: 'The request body contains invalid JSON.', code: 50109 });
        }
      }
      const botAuthorized = req.headers.authorization === `Bot ${options.token}`;
      const needsBot = (): boolean => {
        if (botAuthorized) return false;
        send(401, { message: '401: Unauthorized', code: 0 });
        return true;
      };

      if (route === '/users/@me' && method === 'GET') {
        if (needsBot()) return;
        return send(200, { id: options.applicationId, username: 'hitl-fake-bot', bot: true });
      }
      if (route === '/gateway/bot' && method === 'GET') {
        if (needsBot()) return;
        if (!gateway) return send(404, { message: '404: Not Found', code: 0 });
        return send(200, {
          url: gateway.url,
          shards: 1,
          session_start_limit: {
            total: 1000,
            remaining: 999,
            reset_after: 14_400_000,
            max_concurrency: 1,
          },
        });
      }
      const channel = /^\/channels\/(\d+)\//.exec(route)?.[1];
      if (channel && removed.has(channel))
        return send(403, { message: 'Missing Access', code: 50001 });
      let m = /^\/channels\/(\d+)\/messages$/.exec(route);
      if (m && method === 'POST') {
        if (needsBot()) return;
        if (
          (typeof body.content === 'string' && body.content.length > 2000) ||
          badEmbeds(body.embeds)
        ) {
          return send(400, { message: 'Invalid Form Body', code: 50035 });
        }
        return send(200, store.wire(store.create(m[1]!, body)));
      }
      m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(route);
      if (m && method === 'PATCH') {
        if (needsBot()) return;
        const message = store.find(m[1]!, m[2]!);
        if (!message) return send(404, { message: 'Unknown Message', code: 10008 });
        if (badEmbeds(body.embeds)) return send(400, { message: 'Invalid Form Body', code: 50035 });
        store.edit(message, body);
        message.edits += 1;
        return send(200, store.wire(message));
      }
      m = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(route);
      if (m && method === 'POST') {
        // Interaction routes are authorised by the token in the URL, not the bot token.
        const result = applyInteractionResponse(m[1]!, decodeURIComponent(m[2]!), body);
        return send(result.status, result.body);
      }
      m = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(route);
      if (m && method === 'POST') {
        const interaction = interactions.get(decodeURIComponent(m[2]!));
        if (m[1] !== options.applicationId || !interaction) {
          return send(404, { message: 'Unknown Webhook', code: 10015 });
        }
        interaction.followUps.push(typeof body.content === 'string' ? body.content : '');
        return send(200, {
          ...store.wire(store.detached(interaction.channelId, body)),
          webhook_id: options.applicationId,
        });
      }
      m = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(route);
      if (m && method === 'PUT') {
        if (needsBot()) return;
        if (m[1] !== options.applicationId)
          return send(403, { message: 'Missing Access', code: 50001 });
        const list = Array.isArray(body) ? (body as Array<Record<string, unknown>>) : [];
        const stored = list.map((command) => ({
          ...command,
          id: fakeSnowflake(),
          application_id: m![1],
          version: fakeSnowflake(),
        }));
        commandSets.set(m[2] ? `${m[1]}/${m[2]}` : m[1]!, stored);
        return send(200, stored);
      }
      return send(404, { message: '404: Not Found', code: 0 });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiUrl: `http://127.0.0.1:${port}/api`,
    messages: (channelId) => store.messages(channelId),
    message: (channelId, messageId) => store.find(channelId, messageId),
    registerInteraction(i) {
      interactions.set(i.token, {
        ...i,
        answeredWith: null,
        followUps: [],
        createdAt: Date.now(),
        answeredAfterMs: null,
      });
    },
    applyInteractionResponse,
    followUps: (token) => [...(interactions.get(token)?.followUps ?? [])],
    answeredWith: (token) => interactions.get(token)?.answeredWith ?? null,
    answeredAfterMs: (token) => interactions.get(token)?.answeredAfterMs ?? null,
    useGateway(g) {
      gateway = g;
    },
    commands: (key) => commandSets.get(key),
    deleteMessage: (channelId, messageId) => store.delete(channelId, messageId),
    setLimiter(decide) {
      limiter = decide;
    },
    removeBot(channelId) {
      removed.add(channelId);
    },
    rateLimitNext(count, injection) {
      injections.push({ ...injection, left: count });
    },
    requests: () => [...log],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Discord refuses more than 10 embeds, a title over 256 or a description over 4096 characters, or
 * a colour outside 0-0xFFFFFF.
 */
function badEmbeds(embeds: unknown): boolean {
  if (embeds === undefined) return false;
  if (!Array.isArray(embeds) || embeds.length > 10) return true;
  const tooLong = (v: unknown, max: number) =>
    v !== undefined && (typeof v !== 'string' || v.length > max);
  return embeds.some((e: { title?: unknown; description?: unknown; color?: unknown }) => {
    if (tooLong(e.title, 256) || tooLong(e.description, 4096)) return true;
    const c = e.color;
    return (
      c !== undefined && (typeof c !== 'number' || !Number.isInteger(c) || c < 0 || c > 0xffffff)
    );
  });
}
