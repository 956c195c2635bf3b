/**
 * A Bolt Receiver served by the relay's own HTTP server (HTTP mode). Slack sends interactivity
 * and slash commands to one URL; every request is checked against the signing secret before
 * anything else happens, and answered as soon as the listener acknowledges it.
 */
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { InboundRequest, InboundResponse } from '../../src/adapter.ts';
import type { Logger } from '../../src/log.ts';
import { verifySlackSignature } from './verify.ts';

/** The one path Slack posts interactivity and `/hitl` to (manifest.yml names the same). */
export const SLACK_EVENTS_PATH = '/slack/events';

type Body = Record<string, unknown>;

/** Form-encoded `payload=<JSON>` (interactivity), plain form fields (slash commands) or JSON (events). */
export function parseSlackBody(req: InboundRequest): Body {
  const raw = req.rawBody.toString('utf8');
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error('JSON body is not an object');
    }
    return parsed as Body;
  }
  const form = new URLSearchParams(raw);
  const payload = form.get('payload');
  if (payload !== null) {
    const parsed: unknown = JSON.parse(payload);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error('payload is not an object');
    }
    return parsed as Body;
  }
  return Object.fromEntries(form);
}

/** Bolt's ack(response) -> the HTTP answer: empty, a text, or a JSON message (slash commands). */
function ackResponse(response: unknown): InboundResponse {
  if (response === undefined || response === null || response === '') return { status: 200 };
  if (typeof response === 'string') {
    return {
      status: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: response,
    };
  }
  return { status: 200, body: response as object };
}

/** The HTTP-mode receiver: Bolt calls init/start/stop, the relay's server calls handle(). */
export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  private running = false;
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly signingSecret: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {
    this.running = true;
  }

  /** Stops taking requests and waits for the work of those already acknowledged. */
  async stop(): Promise<void> {
    this.running = false;
    await this.idle();
  }

  /** Resolves when no acknowledged request is still being worked on. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Serves POST /slack/events. */
  async handle(req: InboundRequest): Promise<InboundResponse> {
    const verdict = verifySlackSignature({
      signingSecret: this.signingSecret,
      headers: req.headers,
      rawBody: req.rawBody,
      nowMs: this.now(),
    });
    if (!verdict.ok) {
      this.log.warn({ reason: verdict.reason }, 'slack request refused: signature check failed');
      return { status: 401, body: { error: 'invalid_signature' } };
    }
    const app = this.app;
    if (!app || !this.running) return { status: 503, body: { error: 'not_ready' } };
    let body: Body;
    try {
      body = parseSlackBody(req);
    } catch {
      return { status: 400, body: { error: 'invalid_body' } };
    }
    // Slack checks a slash command's certificate with `ssl_check=1`: answer, do nothing.
    if (body.ssl_check === '1') return { status: 200 };
    if (body.type === 'url_verification' && typeof body.challenge === 'string') {
      return { status: 200, body: { challenge: body.challenge } };
    }
    const retryNum = Number(req.headers['x-slack-retry-num']);
    const retryReason = req.headers['x-slack-retry-reason'];
    return this.dispatch(app, {
      body,
      ...(Number.isInteger(retryNum) ? { retryNum } : {}),
      ...(retryReason ? { retryReason } : {}),
    });
  }

  /** Hands the request to Bolt; the HTTP answer goes out when a listener calls ack(). */
  private dispatch(app: App, event: Omit<ReceiverEvent, 'ack'>): Promise<InboundResponse> {
    return new Promise((resolve) => {
      let answered = false;
      const answer = (res: InboundResponse): void => {
        if (answered) return;
        answered = true;
        resolve(res);
      };
      const ack = async (response?: unknown): Promise<void> => {
        if (answered) {
          this.log.debug('slack ack() called more than once');
          return;
        }
        answer(ackResponse(response));
      };
      const work = app.processEvent({ ...event, ack }).then(
        // No listener acknowledged it (a payload we do not handle).
        () => answer({ status: 404, body: { error: 'unhandled' } }),
        (err: unknown) => {
          this.log.error({ err }, 'slack request failed');
          answer({ status: 500, body: { error: 'internal_error' } });
        },
      );
      this.inflight.add(work);
      void work.finally(() => this.inflight.delete(work));
    });
  }
}
