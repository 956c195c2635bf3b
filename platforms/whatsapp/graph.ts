/**
 * The Graph API's messages endpoint over undici (no SDK): one POST per message, paced per pair,
 * with the pair-rate (131056) and throughput (130429) answers held and retried a bounded number
 * of times. The access token goes in the Authorization header only; it is never logged.
 */
import { request } from 'undici';
import type { PlatformError } from '../../src/errors.ts';
import type { Logger } from '../../src/log.ts';
import {
  GraphError,
  graphError,
  PAIR_RATE_LIMIT,
  THROUGHPUT_LIMIT,
  toPlatformError,
} from './errors.ts';
import { pairLane, type WhatsAppSendPace } from './pace.ts';
import type { OutboundMessage } from './render.ts';

/** How the client reaches the Graph API. */
export interface GraphOptions {
  graphUrl: string;
  graphVersion: string;
  accessToken: string;
  /** Attempts of one message while WhatsApp answers with a rate limit. Default 5. */
  rateLimitAttempts?: number;
  /** How long a throughput limit (130429) holds every send. Default 1 s. */
  throughputHoldMs?: number;
  /** One request's timeout. Default 20 s. */
  timeoutMs?: number;
}

/** What the send answer says: the new message's id ("wamid...."). */
interface SendAnswer {
  messages?: Array<{ id?: string }>;
}

/** Sends messages for one adapter. */
export class GraphClient {
  /** Rate-limit answers received and waited out (the bench reports them). */
  rateLimitAnswers = 0;

  constructor(
    private readonly options: GraphOptions,
    private readonly pace: () => WhatsAppSendPace,
    private readonly log: () => Logger | undefined,
  ) {}

  /** Sends `message` from `phoneId` to `to`; returns its id. Throws PlatformError. */
  async send(phoneId: string, to: string, message: OutboundMessage): Promise<string> {
    const attempts = this.options.rateLimitAttempts ?? 5;
    const lane = pairLane(phoneId, to);
    let last: PlatformError | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const pace = this.pace();
      const release = await pace.acquire(lane);
      try {
        return await this.post(phoneId, to, message);
      } catch (err) {
        if (!(err instanceof GraphError)) throw toPlatformError(err, 'messages');
        if (err.code === PAIR_RATE_LIMIT) {
          // Another sender (a replica, the WhatsApp app) used this pair's slot: wait one more.
          pace.hold(lane, pace.options.pairIntervalMs);
        } else if (err.code === THROUGHPUT_LIMIT) {
          pace.holdAll(this.options.throughputHoldMs ?? 1000);
        } else {
          throw toPlatformError(err, 'messages');
        }
        this.rateLimitAnswers++;
        last = toPlatformError(err, 'messages', pace.options.pairIntervalMs);
        this.log()?.warn({ code: err.code, attempt }, 'whatsapp rate limit; holding the pair');
      } finally {
        release();
      }
    }
    throw last ?? toPlatformError(new Error('no attempt made'), 'messages');
  }

  private async post(phoneId: string, to: string, message: OutboundMessage): Promise<string> {
    const { graphUrl, graphVersion, accessToken } = this.options;
    const url = `${graphUrl}/${graphVersion}/${encodeURIComponent(phoneId)}/messages`;
    const timeout = this.options.timeoutMs ?? 20_000;
    const res = await request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        ...message,
      }),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) throw graphError(res.statusCode, text);
    let answer: SendAnswer;
    try {
      answer = JSON.parse(text) as SendAnswer;
    } catch {
      throw new GraphError(res.statusCode, undefined, 'the send answer was not JSON');
    }
    const id = answer.messages?.[0]?.id;
    if (typeof id !== 'string' || !id) {
      throw new GraphError(res.statusCode, undefined, 'the send answer named no message id');
    }
    return id;
  }
}
