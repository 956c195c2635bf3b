/**
 * The baseline of the tap benchmark: the least a relay can do, on bare node:http and undici. It
 * receives a tap (web chat action or Telegram webhook update), finds the case in a Map, POSTs
 * submit_url with the Bearer token, then edits the message (Telegram: editMessageText +
 * answerCallbackQuery; web: replaces the message in memory) and answers. No store, no checks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

/** A case the baseline knows: where to submit, and the message that shows it. */
export interface BareCase {
  submitUrl: string;
  token: string;
  /** Web: message id; Telegram: chat id and message id. */
  chatId?: number;
  messageId?: number;
  text: string;
}

/** The running baseline. */
export interface BareRelay {
  url: string;
  /** Web messages by id, and Telegram cases by button key. */
  web: Map<string, BareCase>;
  telegram: Map<string, BareCase>;
  /** Called when the baseline finished its (in-memory) web edit of message `id`. */
  onWebEdit: ((id: string) => void) | null;
  stop(): Promise<void>;
}

const WEB = /^\/web\/api\/rooms\/[A-Za-z0-9_-]+\/messages\/([A-Za-z0-9_-]+)\/actions\/([a-z_]+)$/;

/** Starts the baseline; `telegramApi` is the fake Bot API root + `/bot<token>`. */
export async function startBareRelay(o: {
  telegramApi: string;
  webhookSecret: string;
}): Promise<BareRelay> {
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await request(url, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  const submit = (c: BareCase, action: string, platform: string, user: unknown) =>
    post(
      c.submitUrl,
      { action, data: {}, submitted_via: `${platform}_button`, submitted_by: user },
      { authorization: `Bearer ${c.token}` },
    );

  const bare: BareRelay = {
    url: '',
    web: new Map(),
    telegram: new Map(),
    onWebEdit: null,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await dispatcher.close();
    },
  };

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const web = WEB.exec(req.url ?? '');
    if (web) {
      const [, id, action] = web as unknown as [string, string, string];
      const { user } = JSON.parse(raw) as { user: { id: string; name?: string } };
      const c = bare.web.get(id);
      if (!c) return answer(res, 404, { error: 'not_found' });
      const r = await submit(c, action, 'web', { platform: 'x-web', platform_user_id: user.id });
      c.text = r.status === 200 ? `Approved by ${user.name ?? user.id}` : c.text;
      bare.onWebEdit?.(id);
      return answer(res, 200, { outcome: r.status === 200 ? 'submitted' : 'failed', text: c.text });
    }
    if (req.url === '/telegram/webhook') {
      if (req.headers['x-telegram-bot-api-secret-token'] !== o.webhookSecret)
        return answer(res, 401, { ok: false });
      const update = JSON.parse(raw) as {
        callback_query: { id: string; data: string; from: { id: number; first_name: string } };
      };
      const q = update.callback_query;
      const [, key, action] = q.data.split(':') as [string, string, string];
      const c = bare.telegram.get(key);
      if (!c) return answer(res, 200, { ok: true });
      const r = await submit(c, action, 'telegram', {
        platform: 'telegram',
        platform_user_id: String(q.from.id),
      });
      const done = r.status === 200;
      await Promise.all([
        post(`${o.telegramApi}/editMessageText`, {
          chat_id: c.chatId,
          message_id: c.messageId,
          text: `${c.text}\n\n<i>Approved by ${q.from.first_name}</i>`,
          parse_mode: 'HTML',
          reply_markup: { inline_keyboard: [] },
        }),
        post(`${o.telegramApi}/answerCallbackQuery`, {
          callback_query_id: q.id,
          text: done ? 'Done: approve' : 'Failed',
        }),
      ]);
      return answer(res, 200, { ok: true });
    }
    answer(res, 404, { error: 'not_found' });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err) =>
        answer(res, 500, { error: String(err) }),
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  bare.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return bare;
}
