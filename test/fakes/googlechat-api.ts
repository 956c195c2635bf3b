/**
 * A fake Google Chat on 127.0.0.1, port 0, speaking the real wire formats:
 * - the OAuth token endpoint (`POST /token`, the JWT-bearer grant): the service account's assertion
 *   is checked with its public key (issuer, audience = this URL, `chat.bot` scope, at most 1 h);
 * - the Chat API (`POST /v1/spaces/{space}/messages`, `PATCH /v1/spaces/{space}/messages/{id}
 *   ?updateMask=`) with the issued bearer token, enforcing the message rules (googlechat-rules.ts),
 *   `requestId` idempotency, the quotas (writes per space and per project in a window, then 429
 *   RESOURCE_EXHAUSTED), deleted messages (404 NOT_FOUND) and an app removed from a space (403);
 * - Google's signing keys (`GET /certs`, a JWKS) and events: `deliver()` POSTs an interaction event
 *   to the app with a bearer token signed like Chat's (issuer chat@system.gserviceaccount.com,
 *   audience the project number) and applies the app's synchronous answer as Chat does
 *   (UPDATE_MESSAGE edits the clicked card, NEW_MESSAGE posts, privately when it names a viewer).
 * Every request body and every answer of the app is kept for secret scans.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  exportPKCS8,
  exportSPKI,
  generateKeyPair,
  importSPKI,
  type JWK,
  jwtVerify,
  SignJWT,
} from 'jose';
import { request } from 'undici';
import { applyDialogAnswer, type DialogOutcome } from './googlechat-dialog.ts';
import { type ChatFault, checkMessage } from './googlechat-rules.ts';

export const CHAT_ISSUER = 'chat@system.gserviceaccount.com';

export interface FakeChatOptions {
  projectNumber?: string;
  /** Writes per space within `windowMs` (Chat: 60 a minute). */
  spaceLimit?: number;
  /** Message writes per project within `windowMs` (Chat: 3,000 a minute). */
  projectLimit?: number;
  windowMs?: number;
  now?: () => number;
}

/** A message as the fake holds it. */
export interface StoredMessage {
  name: string;
  space: string;
  thread: string;
  body: Record<string, any>;
  deleted: boolean;
  /** When it was created (the fake's clock). */
  at: number;
  /** How it came: an API write, or the app's synchronous answer to an event. */
  via: 'api' | 'answer';
}

export interface ChatUser {
  id: string;
  name: string;
}

type Json = Record<string, any>;

export class FakeGoogleChat {
  /** What each DIALOG answer did (a dialog shown, or its status), oldest first. */
  readonly dialogs: Array<DialogOutcome & { user: string }> = [];
  readonly projectNumber: string;
  readonly messages: StoredMessage[] = [];
  /** 429 answers given. */
  quotaErrors = 0;
  tokensIssued = 0;
  apiRoot = '';
  /** The service account key JSON for the adapter (its private key). */
  keyJson = '';
  private readonly bodies: string[] = [];
  private readonly tokens = new Map<string, number>();
  private readonly writes: Array<{ space: string; at: number }> = [];
  private readonly requestIds = new Map<string, StoredMessage>();
  private readonly spaces = new Map<string, 'member' | 'removed'>();
  private server!: Server;
  private saPublic!: CryptoKey;
  private googleKey!: CryptoKey;
  private googleJwk!: JWK;
  private seq = 0;
  readonly clientEmail = 'hitl-relay@fake-project.iam.gserviceaccount.com';

  private constructor(private readonly o: FakeChatOptions) {
    this.projectNumber = o.projectNumber ?? '123456789012';
  }

  static async start(o: FakeChatOptions = {}): Promise<FakeGoogleChat> {
    const fake = new FakeGoogleChat(o);
    const sa = await generateKeyPair('RS256', { extractable: true });
    fake.saPublic = await importSPKI(await exportSPKI(sa.publicKey), 'RS256');
    const google = await generateKeyPair('RS256', { extractable: true });
    fake.googleKey = google.privateKey;
    fake.googleJwk = {
      ...(await exportJWK(google.publicKey)),
      kid: 'fake-google-1',
      alg: 'RS256',
      use: 'sig',
    };
    fake.server = createServer((req, res) => void fake.serve(req, res));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.apiRoot = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    fake.keyJson = JSON.stringify({
      type: 'service_account',
      project_id: 'fake-project',
      private_key_id: randomBytes(20).toString('hex'),
      private_key: await exportPKCS8(sa.privateKey),
      client_email: fake.clientEmail,
      token_uri: fake.tokenUrl,
    });
    return fake;
  }

  get tokenUrl(): string {
    return `${this.apiRoot}/token`;
  }
  get certsUrl(): string {
    return `${this.apiRoot}/certs`;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** The app is a member of `space` (added to it). */
  addSpace(space: string): void {
    this.spaces.set(space, 'member');
  }
  /** The app is removed from `space`: its writes there are refused with 403. */
  removeApp(space: string): void {
    this.spaces.set(space, 'removed');
  }
  /** A person deletes the message `name`. */
  deleteMessage(name: string): void {
    const m = this.message(name);
    if (m) m.deleted = true;
  }

  /** Every access token issued so far stops working (expired, revoked): the API answers 401. */
  expireTokens(): void {
    this.tokens.clear();
  }

  message(name: string): StoredMessage | undefined {
    return this.messages.find((m) => m.name === name);
  }

  /** Raw bodies of every request received and every answer of the app. */
  requests(): string[] {
    return [...this.bodies];
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    this.bodies.push(raw);
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', this.apiRoot);
    if (req.method === 'GET' && url.pathname === '/certs')
      return answer(200, { keys: [this.googleJwk] });
    if (req.method === 'POST' && url.pathname === '/token') {
      const out = await this.token(raw);
      return answer(out.status, out.body);
    }
    const fault = (f: ChatFault) => answer(f.code, { error: f });
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const until = bearer ? this.tokens.get(bearer) : undefined;
    if (until === undefined || until < this.now())
      return fault({
        code: 401,
        status: 'UNAUTHENTICATED',
        message: 'Request had invalid authentication credentials. Expected OAuth 2 access token.',
      });
    let body: Json;
    try {
      body = JSON.parse(raw);
    } catch {
      return fault({
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'Invalid JSON payload received.',
      });
    }
    const result = this.write(req.method ?? '', url, body);
    if ('code' in result) return fault(result);
    answer(200, this.wire(result));
  }

  /** The token endpoint: the JWT-bearer grant with the service account's assertion. */
  private async token(raw: string): Promise<{ status: number; body: Json }> {
    const form = new URLSearchParams(raw);
    const refuse = (error: string, error_description: string) => ({
      status: 400,
      body: { error, error_description },
    });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return refuse('unsupported_grant_type', 'Invalid grant_type');
    try {
      const { payload } = await jwtVerify(form.get('assertion') ?? '', this.saPublic, {
        issuer: this.clientEmail,
        audience: this.tokenUrl,
        algorithms: ['RS256'],
        currentDate: new Date(this.now()),
      });
      if ((payload.exp ?? 0) - (payload.iat ?? 0) > 3600)
        return refuse('invalid_grant', 'Invalid JWT: exp too far');
      if (
        !String(payload.scope ?? '')
          .split(' ')
          .includes('https://www.googleapis.com/auth/chat.bot')
      )
        return refuse('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    } catch {
      return refuse('invalid_grant', 'Invalid JWT Signature.');
    }
    const token = `ya29.${randomBytes(32).toString('base64url')}`;
    this.tokens.set(token, this.now() + 3600 * 1000);
    this.tokensIssued++;
    return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
  }

  /** The quotas: writes in the window, per space and over the project. */
  private quota(space: string): ChatFault | null {
    const now = this.now();
    const windowMs = this.o.windowMs ?? 60_000;
    while (this.writes.length && (this.writes[0]?.at ?? 0) <= now - windowMs) this.writes.shift();
    const inSpace = this.writes.filter((w) => w.space === space).length;
    if (
      inSpace >= (this.o.spaceLimit ?? 60) ||
      this.writes.length >= (this.o.projectLimit ?? 3000)
    ) {
      this.quotaErrors++;
      return {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: "Quota exceeded for quota metric 'Message writes' and limit 'per minute'.",
      };
    }
    this.writes.push({ space, at: now });
    return null;
  }

  private write(method: string, url: URL, body: Json): ChatFault | StoredMessage {
    const m = /^\/v1\/(spaces\/[^/]+)\/messages(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return { code: 404, status: 'NOT_FOUND', message: 'Method not found.' };
    const space = m[1] as string;
    const state = this.spaces.get(space);
    if (state === undefined)
      return { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' };
    if (state === 'removed')
      return {
        code: 403,
        status: 'PERMISSION_DENIED',
        message: 'The caller does not have permission',
      };
    if (method === 'POST' && !m[2]) return this.create(space, url, body);
    if (method === 'PATCH' && m[2]) return this.patch(`${space}/messages/${m[2]}`, url, body);
    return { code: 404, status: 'NOT_FOUND', message: 'Method not found.' };
  }

  private create(space: string, url: URL, body: Json): ChatFault | StoredMessage {
    const requestId = url.searchParams.get('requestId');
    const again = requestId ? this.requestIds.get(`${space}:${requestId}`) : undefined;
    if (again) return again;
    const broken = checkMessage(body);
    if (broken) return broken;
    const limited = this.quota(space);
    if (limited) return limited;
    const wanted = body.thread?.name;
    const reply = url.searchParams.get('messageReplyOption') !== null;
    const thread =
      reply && typeof wanted === 'string' && this.messages.some((x) => x.thread === wanted)
        ? wanted
        : `${space}/threads/${randomBytes(6).toString('hex')}`;
    const { thread: _, ...content } = body;
    const stored = this.store(space, thread, content, 'api');
    if (requestId) this.requestIds.set(`${space}:${requestId}`, stored);
    return stored;
  }

  private patch(name: string, url: URL, body: Json): ChatFault | StoredMessage {
    const mask = (url.searchParams.get('updateMask') ?? '').split(',').filter(Boolean);
    if (!mask.length)
      return { code: 400, status: 'INVALID_ARGUMENT', message: 'updateMask is required' };
    const known = new Set(['text', 'cardsV2', 'cards_v2', 'attachment', 'accessoryWidgets']);
    const unknown = mask.find((f) => !known.has(f));
    if (unknown)
      return {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: `Invalid update mask field: ${unknown}`,
      };
    const stored = this.message(name);
    if (!stored || stored.deleted)
      return { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' };
    const next = { ...stored.body };
    for (const f of mask)
      next[f === 'cards_v2' ? 'cardsV2' : f] = body[f === 'cards_v2' ? 'cardsV2' : f];
    const broken = checkMessage(next);
    if (broken) return broken;
    const limited = this.quota(stored.space);
    if (limited) return limited;
    stored.body = next;
    return stored;
  }

  private store(
    space: string,
    thread: string,
    body: Json,
    via: StoredMessage['via'],
  ): StoredMessage {
    const stored: StoredMessage = {
      name: `${space}/messages/${(++this.seq).toString(36)}.${randomBytes(4).toString('hex')}`,
      space,
      thread,
      body,
      deleted: false,
      at: this.now(),
      via,
    };
    this.messages.push(stored);
    return stored;
  }

  /** A message as the API answers it. */
  wire(m: StoredMessage): Json {
    return {
      name: m.name,
      sender: { name: 'users/app', type: 'BOT', displayName: 'hitl-relay' },
      createTime: new Date(this.now()).toISOString(),
      ...m.body,
      thread: { name: m.thread },
      space: { name: m.space, type: 'ROOM', spaceType: 'SPACE' },
    };
  }

  /** A bearer token as Chat signs it (override claims or the key to forge one). */
  async eventToken(
    o: { aud?: string; iss?: string; ttlS?: number; iatS?: number } = {},
  ): Promise<string> {
    const iat = o.iatS ?? Math.floor(this.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'fake-google-1', typ: 'JWT' })
      .setIssuer(o.iss ?? CHAT_ISSUER)
      .setAudience(o.aud ?? this.projectNumber)
      .setIssuedAt(iat)
      .setExpirationTime(iat + (o.ttlS ?? 3600))
      .sign(this.googleKey);
  }

  /** An interaction event body as Chat sends it to an HTTP app. */
  event(
    type: string,
    o: {
      space: string;
      user: ChatUser;
      message?: StoredMessage;
      text?: string;
      parameters?: Record<string, string>;
      formInputs?: Json;
      /** A dialog event: REQUEST_DIALOG (a button with interaction OPEN_DIALOG), SUBMIT_DIALOG, CANCEL_DIALOG. */
      dialog?: 'REQUEST_DIALOG' | 'SUBMIT_DIALOG' | 'CANCEL_DIALOG';
    },
  ): Json {
    // Chat's event times carry microseconds: two clicks are never the same event.
    const at = new Date(this.now())
      .toISOString()
      .replace('Z', `${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}Z`);
    const fn = 'hitl';
    const user = {
      name: o.user.id,
      displayName: o.user.name,
      email: `${o.user.name.split(' ')[0]?.toLowerCase()}@example.com`,
      type: 'HUMAN',
      domainId: 'd1',
    };
    const space = { name: o.space, type: 'ROOM', spaceType: 'SPACE', displayName: 'Reviews' };
    const body: Json = {
      type,
      eventTime: at,
      user,
      space,
      common: {
        userLocale: 'en',
        hostApp: 'CHAT',
        platform: 'WEB',
        timeZone: { id: 'Europe/Berlin', offset: 3_600_000 },
      },
    };
    if (o.message) body.message = this.wire(o.message);
    if (type === 'MESSAGE')
      body.message = {
        name: `${o.space}/messages/in${randomUUID()}`,
        text: o.text ?? '',
        argumentText: o.text ?? '',
        sender: user,
        thread: { name: `${o.space}/threads/in` },
        space,
      };
    if (type === 'CARD_CLICKED') {
      const parameters = o.parameters ?? {};
      body.action = {
        actionMethodName: fn,
        parameters: Object.entries(parameters).map(([key, value]) => ({ key, value })),
      };
      body.common = {
        ...body.common,
        invokedFunction: fn,
        parameters,
        ...(o.formInputs ? { formInputs: o.formInputs } : {}),
      };
      if (o.dialog) Object.assign(body, { isDialogEvent: true, dialogEventType: o.dialog });
    }
    return body;
  }

  /**
   * POSTs `body` to the app at `url` as Chat does (a fresh token unless one is given) and applies
   * its synchronous answer; returns the status, the answer and the message the answer made.
   */
  async deliver(
    url: string,
    body: Json | string,
    token?: string,
  ): Promise<{ status: number; answer: Json | null; made: StoredMessage | null; ms: number }> {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const started = performance.now();
    const res = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Google-Dynamite',
        authorization: `Bearer ${token ?? (await this.eventToken())}`,
      },
      body: raw,
    });
    const text = await res.body.text();
    const ms = performance.now() - started;
    this.bodies.push(text);
    if (res.statusCode !== 200) return { status: res.statusCode, answer: null, made: null, ms };
    const answer = JSON.parse(text) as Json;
    return {
      status: 200,
      answer,
      made: this.apply(typeof body === 'string' ? JSON.parse(body) : body, answer),
      ms,
    };
  }

  /** What Chat does with an app's synchronous answer. */
  private apply(event: Json, answer: Json): StoredMessage | null {
    const type =
      answer.actionResponse?.type ?? (answer.text || answer.cardsV2 ? 'NEW_MESSAGE' : null);
    if (!type) return null;
    if (type === 'DIALOG') {
      this.dialogs.push({ user: event.user?.name, ...applyDialogAnswer(event, answer) });
      return null;
    }
    const { actionResponse: _, ...content } = answer;
    const broken = checkMessage(content);
    if (broken) throw new Error(`Chat would refuse the app's answer: ${broken.message}`);
    if (type === 'UPDATE_MESSAGE') {
      const clicked = this.message(event.message?.name);
      if (!clicked || clicked.deleted)
        throw new Error('UPDATE_MESSAGE for a message Chat does not have');
      clicked.body = { ...clicked.body, text: content.text ?? '', cardsV2: content.cardsV2 ?? [] };
      return clicked;
    }
    const thread =
      event.message?.thread?.name ??
      `${event.space.name}/threads/${randomBytes(6).toString('hex')}`;
    return this.store(event.space.name, thread, content, 'answer');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
