/**
 * A fake Telegram Bot API server (node:http on 127.0.0.1, port 0) for grammY's `apiRoot`.
 * It answers `/bot<token>/<method>` exactly like the real API (`{ok:true,result}` /
 * `{ok:false,error_code,description,parameters}`), keeps chats and messages, long-polls getUpdates,
 * delivers webhooks with the secret header, records every request body and can inject 429s.
 */
import { randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update, User, UserFromGetMe } from 'grammy/types';
import { FakeTelegramMethods } from './telegram-methods.ts';

export type { RecordedAnswer, StoredMessage } from './telegram-state.ts';

/** One request as the fake received it. */
export interface RecordedRequest {
  method: string;
  body: string;
}

/** What a Bot API method answers: a result, or an error with Telegram's code and wording. */
export type MethodResult =
  | { ok: true; result: unknown; description?: string }
  | {
      ok: false;
      error_code: number;
      description: string;
      parameters?: { retry_after?: number; migrate_to_chat_id?: number };
    };

/** Options of the fake. */
export interface FakeTelegramOptions {
  token?: string;
  botInfo?: UserFromGetMe;
}

/** Makes a bot identity for tests; the id is random so de-duplication keys never meet across tests. */
export function makeBotInfo(username = 'hitl_test_bot'): UserFromGetMe {
  return {
    id: randomInt(1_000_000, 2_000_000_000),
    is_bot: true,
    first_name: 'HITL Test',
    username,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
  } as UserFromGetMe;
}

/** A bot token of the real shape ("<id>:<35 characters>"). */
export function makeBotToken(botId: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
  let secret = 'AA';
  for (let i = 0; i < 33; i++) secret += alphabet[randomInt(alphabet.length)];
  return `${botId}:${secret}`;
}

/** The fake server plus test helpers. */
export class FakeTelegramApi extends FakeTelegramMethods {
  readonly token: string;
  private server: Server | null = null;
  private root = '';
  private readonly recorded: RecordedRequest[] = [];
  private readonly failures = new Map<string, { count: number; retryAfter: number }>();
  private readonly holds = new Map<string, Promise<void>>();

  private constructor(options: FakeTelegramOptions) {
    const botInfo = options.botInfo ?? makeBotInfo();
    super(botInfo);
    this.token = options.token ?? makeBotToken(botInfo.id);
  }

  /** Starts a fake on 127.0.0.1 with a free port. */
  static async start(options: FakeTelegramOptions = {}): Promise<FakeTelegramApi> {
    const fake = new FakeTelegramApi(options);
    const server = createServer((req, res) => void fake.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.server = server;
    fake.root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The value for grammY's `client.apiRoot`. */
  get apiRoot(): string {
    return this.root;
  }

  /** The next `count` calls of `method` answer 429 with `retry_after` seconds. */
  inject429(method: string, count: number, retryAfter = 1): void {
    this.failures.set(method, { count, retryAfter });
  }

  /**
   * Calls of `method` are recorded but left unanswered until the returned function is called (a
   * slow or stuck Bot API); then they are answered as usual.
   */
  hold(method: string): () => void {
    let release = () => {};
    this.holds.set(
      method,
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
    return () => {
      this.holds.delete(method);
      release();
    };
  }

  /** Every request received, in order. */
  requests(): RecordedRequest[] {
    return [...this.recorded];
  }

  /** Calls of one method (parsed bodies), in order. */
  calls(method: string): Record<string, unknown>[] {
    return this.recorded
      .filter((r) => r.method === method)
      .map((r) => (r.body ? (JSON.parse(r.body) as Record<string, unknown>) : {}));
  }

  /**
   * POSTs an update to the webhook set by setWebhook (or `url`), with the secret header that
   * setWebhook was given (or `secret`; null sends none). Returns the relay's answer.
   */
  async deliverWebhook(
    update: Update,
    options: { url?: string; secret?: string | null } = {},
  ): Promise<{ status: number; body: string }> {
    const url = options.url ?? this.webhookInfo().url;
    if (!url) throw new Error('no webhook is set');
    const secret = options.secret === undefined ? this.webhookSecret() : options.secret;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}),
      },
      body: JSON.stringify(update),
    });
    return { status: res.status, body: await res.text() };
  }

  /** A person of the test's making. */
  static user(id: number, firstName: string, extra: Partial<User> = {}): User {
    return { id, is_bot: false, first_name: firstName, ...extra };
  }

  async close(): Promise<void> {
    this.shutdown();
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.root);
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const send = (answer: MethodResult) => {
      if (res.writableEnded || res.destroyed) return;
      const status = answer.ok ? 200 : answer.error_code;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    };
    if (!match) return send({ ok: false, error_code: 404, description: 'Not Found' });
    const [, token, method] = match as unknown as [string, string, string];
    this.recorded.push({ method, body: raw });
    if (token !== this.token)
      return send({ ok: false, error_code: 401, description: 'Unauthorized' });
    let params: Record<string, unknown>;
    try {
      params = parseParams(raw, req.headers['content-type'], url.searchParams);
    } catch {
      return send({ ok: false, error_code: 400, description: 'Bad Request: invalid JSON' });
    }
    const failure = this.failures.get(method);
    if (failure && failure.count > 0) {
      failure.count -= 1;
      return send({
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${failure.retryAfter}`,
        parameters: { retry_after: failure.retryAfter },
      });
    }
    const held = this.holds.get(method);
    if (held) await held;
    if (method === 'getUpdates') {
      const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
      return send(await this.getUpdates(params, closed));
    }
    send(this.call(method, params));
  }
}

/** Reads parameters the ways the Bot API accepts them: JSON, form or query string. */
function parseParams(
  raw: string,
  contentType: string | undefined,
  query: URLSearchParams,
): Record<string, unknown> {
  const params: Record<string, unknown> = Object.fromEntries(query);
  if (!raw) return params;
  if (contentType?.includes('application/json')) {
    return { ...params, ...(JSON.parse(raw) as Record<string, unknown>) };
  }
  for (const [key, value] of new URLSearchParams(raw)) {
    try {
      params[key] = JSON.parse(value);
    } catch {
      params[key] = value;
    }
  }
  return params;
}
