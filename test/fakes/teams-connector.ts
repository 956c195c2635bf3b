/**
 * A fake Bot Connector (the Teams side of the Bot Framework REST API v3) on 127.0.0.1, port 0, used
 * as `serviceUrl`. It implements what a bot calls to post and edit cards:
 *   POST /v3/conversations/:c/activities             new message (";messageid=<root>" in :c = thread reply)
 *   POST /v3/conversations/:c/activities/:replyToId  reply (an unknown id starts a new message, as Teams does)
 *   PUT  /v3/conversations/:c/activities/:id         edit (404 ActivityNotFoundInConversation when unknown)
 *   POST /v3/conversations                            open a personal chat (ConversationParameters:
 *        isGroup false, bot, one member, tenantId): the same user gets the same "a:..." id again; a
 *        user who never added the app answers 403 BotNotInConversationRoster, as Teams does
 * each answering `{id}`. It keeps every activity and its versions, records raw bodies and headers,
 * and can fail the next requests with 429 (Retry-After), 412, 502 or 504.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake received it. */
export interface RecordedConnectorRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A message the fake holds. */
export interface FakeActivity {
  id: string;
  /** The conversation it lives in (thread suffix removed). */
  conversationId: string;
  /** The root message when it is a reply in a thread / reply chain. */
  replyToId: string | null;
  /** Every version of the activity JSON, oldest first (posts, then each PUT). */
  versions: Array<Record<string, unknown>>;
}

interface Failure {
  status: number;
  retryAfter?: string;
}

/** The fake server plus test helpers. */
export class FakeTeamsConnector {
  private server: Server | null = null;
  private base = '';
  private nextId = 1_700_000_000_000;
  private readonly recorded: RecordedConnectorRequest[] = [];
  private readonly activities = new Map<string, FakeActivity>();
  private readonly order: string[] = [];
  private readonly failures: Failure[] = [];
  /** Conversations the bot was removed from. */
  private readonly removed = new Set<string>();
  /** Users who have not added the app for themselves: no personal chat can be opened. */
  private readonly withoutApp = new Set<string>();
  /** Personal chats opened, by user id. */
  private readonly personal = new Map<string, string>();
  /** Called with each request as it arrives (benchmarks time the edits with it). */
  onRequest: ((r: RecordedConnectorRequest) => void) | null = null;

  /** Starts a fake on 127.0.0.1 with a free port. */
  static async start(): Promise<FakeTeamsConnector> {
    const fake = new FakeTeamsConnector();
    const server = createServer((req, res) => void fake.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.server = server;
    fake.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    return fake;
  }

  /** The `serviceUrl` activities carry: `http://127.0.0.1:PORT/`. */
  get serviceUrl(): string {
    return this.base;
  }

  /** Fails the next `count` connector calls with `status` (and a Retry-After in seconds, if given). */
  failNext(count: number, status: number, retryAfterSeconds?: number): void {
    for (let i = 0; i < count; i++) {
      this.failures.push({
        status,
        ...(retryAfterSeconds !== undefined ? { retryAfter: String(retryAfterSeconds) } : {}),
      });
    }
  }

  /** A person deletes a message: edits of it answer 404 ActivityNotFoundInConversation. */
  deleteActivity(id: string): void {
    this.activities.delete(id);
  }

  /** The bot is removed from a conversation: every call there answers 403, as Teams does. */
  removeBot(conversationId: string): void {
    this.removed.add(conversationId);
  }

  /** User `userId` has not added the app personally: opening a personal chat answers 403. */
  withoutAppFor(userId: string): void {
    this.withoutApp.add(userId);
  }

  /** The personal chat opened with `userId`, if any. */
  personalChatOf(userId: string): string | undefined {
    return this.personal.get(userId);
  }

  /** Raw bodies of every request received. */
  requests(): string[] {
    return this.recorded.map((r) => r.body);
  }

  /** Every request received, with method, path and headers. */
  recordedRequests(): RecordedConnectorRequest[] {
    return [...this.recorded];
  }

  /** An activity by id. */
  activity(id: string): FakeActivity | undefined {
    return this.activities.get(id);
  }

  /** Activities of `conversationId` in posting order (replies included). */
  conversation(conversationId: string): FakeActivity[] {
    return this.order
      .map((id) => this.activities.get(id))
      .filter((a): a is FakeActivity => a?.conversationId === conversationId);
  }

  /** The latest version of an activity. */
  current(id: string): Record<string, unknown> | undefined {
    return this.activities.get(id)?.versions.at(-1);
  }

  /** The Adaptive Card content of the latest version of an activity, or undefined. */
  card(id: string): Record<string, unknown> | undefined {
    return adaptiveCardOf(this.current(id));
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** POST /v3/conversations for a personal chat, as Teams checks its ConversationParameters. */
  private createConversation(res: ServerResponse, body: string): void {
    const params = parseJson(body);
    const members = params?.members as Array<{ id?: unknown }> | undefined;
    const userId = members?.[0]?.id;
    const bot = params?.bot as { id?: unknown } | undefined;
    if (
      params?.isGroup !== false ||
      members?.length !== 1 ||
      typeof userId !== 'string' ||
      typeof bot?.id !== 'string' ||
      typeof params.tenantId !== 'string'
    ) {
      send(res, 400, {
        error: { code: 'BadArgument', message: 'Incorrect conversation creation parameters' },
      });
      return;
    }
    if (this.withoutApp.has(userId)) {
      send(res, 403, {
        error: {
          code: 'BotNotInConversationRoster',
          message: 'The bot is not part of the conversation roster.',
        },
      });
      return;
    }
    const id = this.personal.get(userId) ?? `a:1${String(this.nextId++)}`;
    this.personal.set(userId, id);
    send(res, 201, { id });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.base);
    const recorded = { method: req.method ?? '', path: url.pathname, headers: req.headers, body };
    this.recorded.push(recorded);
    this.onRequest?.(recorded);
    const failure = this.failures.shift();
    if (failure) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (failure.retryAfter !== undefined) headers['retry-after'] = failure.retryAfter;
      return send(
        res,
        failure.status,
        { error: { code: 'Throttled', message: 'injected failure' } },
        headers,
      );
    }
    if (req.method === 'POST' && url.pathname === '/v3/conversations')
      return this.createConversation(res, body);
    const match = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(url.pathname);
    if (!match?.[1])
      return send(res, 404, { error: { code: 'NotFound', message: 'no such route' } });
    const rawConversation = decodeURIComponent(match[1]);
    const pathId = match[2] ? decodeURIComponent(match[2]) : null;
    let activity: Record<string, unknown>;
    try {
      activity = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return send(res, 400, { error: { code: 'BadArgument', message: 'body is not JSON' } });
    }
    const [conversationId = rawConversation, thread] = rawConversation.split(';messageid=');
    if (this.removed.has(conversationId)) {
      return send(res, 403, {
        error: {
          code: 'BotNotInConversationRoster',
          message: 'The bot is not part of the conversation roster.',
        },
      });
    }
    if (req.method === 'PUT' && pathId) {
      const existing = this.activities.get(pathId);
      if (!existing || existing.conversationId !== conversationId) {
        return send(res, 404, {
          error: { code: 'ActivityNotFoundInConversation', message: 'Unknown activity' },
        });
      }
      existing.versions.push(activity);
      return send(res, 200, { id: pathId });
    }
    if (req.method === 'POST') {
      const parent = thread ?? (pathId && this.activities.has(pathId) ? pathId : null);
      const id = String(this.nextId++);
      this.activities.set(id, { id, conversationId, replyToId: parent, versions: [activity] });
      this.order.push(id);
      return send(res, 201, { id });
    }
    return send(res, 405, { error: { code: 'BadArgument', message: 'method not allowed' } });
  }
}

function parseJson(body: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(body) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): void {
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}

/** The Adaptive Card in an activity's attachments, or undefined. */
export function adaptiveCardOf(
  activity: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const attachments = activity?.attachments;
  if (!Array.isArray(attachments)) return undefined;
  const card = attachments.find(
    (a) =>
      (a as { contentType?: string }).contentType === 'application/vnd.microsoft.card.adaptive',
  ) as { content?: Record<string, unknown> } | undefined;
  return card?.content;
}
