/**
 * The Chat API's message writes over undici (no SDK: @googleapis/chat needs Node 22):
 * `spaces.messages.create` (POST /v1/{space}/messages, a `requestId` so a retried create is not a
 * second message) and `spaces.messages.patch` (PATCH /v1/{message}?updateMask=text,cardsV2), as
 * the app's service account. Writes are paced per space; a 429 holds the space with exponential
 * backoff (Google sends no Retry-After) a bounded number of times; a 401 renews the token once.
 */
import { request } from 'undici';
import type { Logger } from '../../src/log.ts';
import type { PacePriority } from '../../src/pace.ts';
import type { ServiceAccountToken } from './auth.ts';
import { ChatApiError, chatApiError, toPlatformError } from './errors.ts';
import type { GooglechatPace } from './pace.ts';
import type { ChatMessage } from './render.ts';

/** What the API answers for a message (the fields the adapter reads). */
export interface ChatMessageAnswer {
  /** "spaces/{space}/messages/{message}" */
  name: string;
  thread?: { name?: string };
}

export interface ChatClientOptions {
  apiUrl: string;
  /** Attempts of one write while the API answers 429. Default 5. */
  rateLimitAttempts?: number;
  /** The first backoff after a 429; doubled each time. Default 1 s. */
  backoffMs?: number;
  timeoutMs?: number;
}

/** One write: which space it counts against, its priority, and (edits) the message it replaces. */
interface Write {
  space: string;
  call: string;
  method: 'POST' | 'PATCH';
  path: string;
  body: unknown;
  priority: PacePriority;
  key?: string;
}

/** The space part of a message or space name. */
export const spaceOf = (name: string) => name.split('/').slice(0, 2).join('/');

/** Writes messages for one adapter. */
export class ChatClient {
  /** 429 answers received and waited out (the bench reports them). */
  rateLimitAnswers = 0;

  constructor(
    private readonly options: ChatClientOptions,
    private readonly token: ServiceAccountToken,
    private readonly pace: () => GooglechatPace,
    private readonly log: () => Logger | undefined,
  ) {}

  /** Creates a message in `space` (in `thread` when given); returns its name and thread. */
  async create(
    space: string,
    message: ChatMessage,
    o: { thread?: string; requestId?: string; priority?: PacePriority } = {},
  ): Promise<ChatMessageAnswer> {
    const query = new URLSearchParams();
    if (o.requestId) query.set('requestId', o.requestId);
    if (o.thread) query.set('messageReplyOption', 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD');
    const body = o.thread ? { ...message, thread: { name: o.thread } } : message;
    return this.write({
      space,
      call: 'spaces.messages.create',
      method: 'POST',
      path: `/v1/${space}/messages${query.size ? `?${query}` : ''}`,
      body,
      priority: o.priority ?? 'high',
    });
  }

  /** Replaces the text and cards of the message `name`. */
  async patch(name: string, message: ChatMessage, priority: PacePriority = 'high'): Promise<void> {
    await this.write({
      space: spaceOf(name),
      call: 'spaces.messages.patch',
      method: 'PATCH',
      path: `/v1/${name}?updateMask=text,cardsV2`,
      body: { text: message.text ?? '', cardsV2: message.cardsV2 ?? [] },
      priority,
      key: name,
    });
  }

  private async write(w: Write): Promise<ChatMessageAnswer> {
    const attempts = this.options.rateLimitAttempts ?? 5;
    let backoff = this.options.backoffMs ?? 1000;
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      const pace = this.pace();
      const release = await pace.slot(w.space, {
        priority: w.priority,
        ...(w.key ? { key: w.key } : {}),
      });
      // A later edit of the same message took this one's place: nothing to send.
      if (!release) return { name: w.key ?? '' };
      try {
        return await this.send(w);
      } catch (err) {
        if (!(err instanceof ChatApiError)) throw toPlatformError(err, w.call);
        if (err.httpStatus === 401 && !renewed) {
          renewed = true;
          this.token.invalidate();
          continue;
        }
        if (err.httpStatus !== 429 || attempt >= attempts)
          throw toPlatformError(err, w.call, err.httpStatus === 429 ? backoff : undefined);
        this.rateLimitAnswers++;
        pace.hold(w.space, backoff);
        this.log()?.warn(
          { space: w.space, attempt, wait_ms: backoff },
          'google chat 429; backing off',
        );
        backoff *= 2;
      } finally {
        release();
      }
    }
  }

  private async send(w: Write): Promise<ChatMessageAnswer> {
    const timeout = this.options.timeoutMs ?? 20_000;
    const res = await request(`${this.options.apiUrl}${w.path}`, {
      method: w.method,
      headers: {
        authorization: `Bearer ${await this.token.get()}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify(w.body),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300)
      throw chatApiError(res.statusCode, text, w.call);
    let answer: ChatMessageAnswer;
    try {
      answer = JSON.parse(text) as ChatMessageAnswer;
    } catch {
      throw new ChatApiError(res.statusCode, 'INVALID', `${w.call}: the answer was not JSON`);
    }
    if (typeof answer.name !== 'string' || !answer.name)
      throw new ChatApiError(res.statusCode, 'INVALID', `${w.call}: the answer named no message`);
    return answer;
  }
}
