/**
 * A fake WhatsApp Cloud API (Graph API) on 127.0.0.1, port 0: `GET /<v>/me` and
 * `POST /<v>/<phone number id>/messages` with a Bearer token, answering like the real API
 * (`{messaging_product, contacts, messages:[{id}]}` / `{error:{message,type,code,error_data}}`).
 * It enforces the platform's rules (test/fakes/whatsapp-rules.ts), the 24-hour window (a
 * non-template message to someone who has not written in 24 h: #131047), the pair rate (a second
 * message to one person within `pairIntervalMs`: #131056), and it sends signed webhooks the way
 * Meta does (X-Hub-Signature-256 over the raw body), keeping every request body for secret scans.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { checkMessage, type FakeTemplate, type GraphFault } from './whatsapp-rules.ts';

export type { FakeTemplate } from './whatsapp-rules.ts';

/** A message the fake accepted. */
export interface SentMessage {
  id: string;
  phoneId: string;
  to: string;
  at: number;
  /** The request body as sent (type, interactive / text / template, context). */
  body: Record<string, any>;
}

export interface FakeGraphOptions {
  phoneId?: string;
  appSecret?: string;
  templates?: FakeTemplate[];
  /** Least time between two messages to one person before #131056. Default 6000. */
  pairIntervalMs?: number;
  now?: () => number;
}

const WINDOW_MS = 24 * 60 * 60 * 1000;

/** One tap, text or status as Meta's webhook carries it. */
export type WebhookItem =
  | {
      kind: 'reply';
      from: string;
      name: string;
      contextId: string;
      id: string;
      via: 'button' | 'list' | 'template';
      title?: string;
      at?: number;
    }
  | { kind: 'text'; from: string; name: string; text: string; at?: number }
  | {
      kind: 'status';
      messageId: string;
      recipient: string;
      status: 'sent' | 'delivered' | 'read' | 'failed';
      errorCode?: number;
      at?: number;
    };

export class FakeWhatsAppGraph {
  readonly token = `EAAG${randomBytes(24).toString('base64url')}`;
  readonly appSecret: string;
  readonly phoneId: string;
  readonly sent: SentMessage[] = [];
  /** Pair-rate (#131056) answers given. */
  pairRateErrors = 0;
  private readonly bodies: string[] = [];
  private readonly lastInbound = new Map<string, number>();
  private readonly lastSent = new Map<string, number>();
  private seq = 0;
  private server!: Server;
  apiRoot = '';

  private constructor(private readonly o: FakeGraphOptions) {
    this.appSecret = o.appSecret ?? randomBytes(16).toString('hex');
    this.phoneId = o.phoneId ?? '109876543210987';
  }

  static async start(o: FakeGraphOptions = {}): Promise<FakeWhatsAppGraph> {
    const fake = new FakeWhatsAppGraph(o);
    fake.server = createServer((req, res) => void fake.serve(req, res));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.apiRoot = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** Messages sent to `to`, in order. */
  messagesTo(to: string): SentMessage[] {
    return this.sent.filter((m) => m.to === to);
  }

  message(id: string): SentMessage | undefined {
    return this.sent.find((m) => m.id === id);
  }

  /** The raw bodies of every request received. */
  requests(): string[] {
    return [...this.bodies];
  }

  /** The person wrote to the business at `at` (their window opens); the webhook carries it too. */
  markInbound(from: string, at = this.now()): void {
    this.lastInbound.set(from, Math.max(at, this.lastInbound.get(from) ?? 0));
  }

  /** Another sender (the business's WhatsApp app, a second relay) just messaged `to`: its slot is taken. */
  takePairSlot(to: string, at = this.now()): void {
    this.lastSent.set(to, at);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    this.bodies.push(raw);
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const fault = (f: GraphFault) =>
      answer(f.status, {
        error: {
          message: f.message,
          type: 'OAuthException',
          code: f.code,
          ...(f.details
            ? { error_data: { messaging_product: 'whatsapp', details: f.details } }
            : {}),
          fbtrace_id: randomBytes(8).toString('base64url'),
        },
      });
    if (req.headers.authorization !== `Bearer ${this.token}`)
      return fault({
        status: 401,
        code: 190,
        message: 'Invalid OAuth access token - Cannot parse access token',
      });
    const path = new URL(req.url ?? '/', this.apiRoot).pathname.split('/').filter(Boolean);
    if (req.method === 'GET' && path.length === 2 && path[1] === 'me')
      return answer(200, { id: '61550000000001', name: 'hitl-relay system user' });
    if (req.method !== 'POST' || path.length !== 3 || path[2] !== 'messages')
      return fault({ status: 400, code: 100, message: 'Unsupported request' });
    if (path[1] !== this.phoneId)
      return answer(400, {
        error: {
          message: `Unsupported post request. Object with ID '${path[1]}' does not exist`,
          type: 'GraphMethodException',
          code: 100,
          error_subcode: 33,
        },
      });
    let body: Record<string, any>;
    try {
      body = JSON.parse(raw);
    } catch {
      return fault({
        status: 400,
        code: 100,
        message: '(#100) The parameter messaging_product is required.',
      });
    }
    const result = this.accept(body);
    if ('status' in result) return fault(result);
    answer(200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: body.to, wa_id: body.to }],
      messages: [{ id: result.id }],
    });
  }

  /** The rules, the window and the pair rate; stores the message when all hold. */
  private accept(body: Record<string, any>): GraphFault | { id: string } {
    const broken = checkMessage(body, this.o.templates ?? []);
    if (broken) return broken;
    const now = this.now();
    const to = body.to as string;
    if (
      body.type !== 'template' &&
      now - (this.lastInbound.get(to) ?? Number.NEGATIVE_INFINITY) >= WINDOW_MS
    )
      return {
        status: 400,
        code: 131047,
        message: '(#131047) Re-engagement message',
        details:
          'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      };
    const contextId = body.context?.message_id;
    if (contextId !== undefined && !this.sent.some((m) => m.id === contextId && m.to === to))
      return {
        status: 400,
        code: 131009,
        message: '(#131009) Parameter value is not valid',
        details: 'context.message_id is not a message in this chat',
      };
    const last = this.lastSent.get(to);
    if (last !== undefined && now - last < (this.o.pairIntervalMs ?? 6000)) {
      this.pairRateErrors++;
      return {
        status: 400,
        code: 131056,
        message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
        details:
          'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
      };
    }
    this.lastSent.set(to, now);
    const id = `wamid.${Buffer.from(`${this.phoneId}:${to}:${++this.seq}:${randomBytes(4).toString('hex')}`).toString('base64url')}`;
    this.sent.push({ id, phoneId: this.phoneId, to, at: now, body });
    return { id };
  }

  /** The webhook body Meta would send for `items` (one change of the `messages` field). */
  webhookBody(items: WebhookItem[]): string {
    const contacts = new Map<string, string>();
    const messages: unknown[] = [];
    const statuses: unknown[] = [];
    for (const item of items) {
      const ts = String(Math.floor((item.at ?? this.now()) / 1000));
      if (item.kind === 'status') {
        statuses.push({
          id: item.messageId,
          status: item.status,
          timestamp: ts,
          recipient_id: item.recipient,
          ...(item.errorCode
            ? {
                errors: [
                  { code: item.errorCode, title: 'Message failed', message: 'Message failed' },
                ],
              }
            : {}),
        });
        continue;
      }
      contacts.set(item.from, item.name);
      const id = `wamid.in${randomBytes(12).toString('hex')}`;
      if (item.kind === 'text') {
        messages.push({
          from: item.from,
          id,
          timestamp: ts,
          type: 'text',
          text: { body: item.text },
        });
      } else if (item.via === 'template') {
        messages.push({
          context: { from: this.phoneId, id: item.contextId },
          from: item.from,
          id,
          timestamp: ts,
          type: 'button',
          button: { payload: item.id, text: item.title ?? '' },
        });
      } else {
        const kind = item.via === 'list' ? 'list_reply' : 'button_reply';
        messages.push({
          context: { from: this.phoneId, id: item.contextId },
          from: item.from,
          id,
          timestamp: ts,
          type: 'interactive',
          interactive: { type: kind, [kind]: { id: item.id, title: item.title ?? '' } },
        });
      }
    }
    return JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001234', phone_number_id: this.phoneId },
                ...(contacts.size
                  ? {
                      contacts: [...contacts].map(([wa_id, name]) => ({
                        profile: { name },
                        wa_id,
                      })),
                    }
                  : {}),
                ...(messages.length ? { messages } : {}),
                ...(statuses.length ? { statuses } : {}),
              },
            },
          ],
        },
      ],
    });
  }

  /** POSTs `body` to the relay signed with the app secret (or `secret`), as Meta does. */
  async deliver(
    url: string,
    body: string,
    secret = this.appSecret,
  ): Promise<{ status: number; text: string }> {
    // A person's message opens their window; a forged one (another secret) is no one's message.
    if (secret === this.appSecret)
      for (const item of JSON.parse(body).entry[0].changes[0].value.messages ?? [])
        this.markInbound(item.from, Number(item.timestamp) * 1000);
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    return { status: res.statusCode, text: await res.body.text() };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
