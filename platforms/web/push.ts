/**
 * Web Push from the web chat: a new case in a room, a reminder or expiry warning under its card,
 * and its outcome go to the phones and browsers subscribed to that room of the people who may
 * decide that case there (the per-person rule of `/pending` and the inbox: allowlist, policy). web-push builds each
 * request (the VAPID JWT and the RFC 8291 aes128gcm payload); the request itself goes out through
 * the relay's guarded dispatcher (the URL policy on every address) under a send pace per push
 * service. A 404 or 410 from the push service means the subscription is gone: it is removed.
 * A push's data is `{title, body, url, tag}`: the card's path, never a token or a secret.
 */
import { request } from 'undici';
import webpush from 'web-push';
import type { AdapterSealer, KeyValue } from '../../src/adapter.ts';
import type { Logger } from '../../src/log.ts';
import { createGuardedAgent } from '../../src/net/http.ts';
import type { UrlPolicy } from '../../src/net/url-policy.ts';
import { SendPace } from '../../src/pace.ts';
import {
  loadVapidKeys,
  type PushSubscriptionRecord,
  PushSubscriptions,
  type VapidKeys,
} from './push-store.ts';

/** What a notification shows and opens. */
export interface PushPayload {
  title: string;
  body: string;
  /** A same-origin path: /chat?room=… or /inbox. */
  url: string;
  /** One notification per case: a newer one replaces it. */
  tag: string;
}

/** Web Push settings (absent: the web chat sends no pushes). */
export interface WebPushOptions {
  policy: UrlPolicy;
  /** The VAPID subject: PUBLIC_URL (https) or a mailto: address. */
  subject?: string;
  /** A push service's own pace: at most this many sends a second per push service. */
  perSecond?: number;
}

/** How one send ended. */
export type PushResult = 'sent' | 'gone' | 'failed';

const TEXT_MAX = 300;
const clip = (s: string) => (s.length > TEXT_MAX ? `${s.slice(0, TEXT_MAX - 1)}…` : s);

/** Sends pushes for one web chat. */
export class WebPusher {
  readonly subscriptions: PushSubscriptions;
  private readonly dispatcher;
  private readonly pace: SendPace;
  private keys: Promise<VapidKeys> | undefined;

  constructor(
    private readonly options: WebPushOptions,
    private readonly kv: () => KeyValue,
    private readonly log: () => Logger | undefined,
    /** The relay's sealer for the VAPID keys (AdapterContext.sealer). */
    private readonly sealer: () => AdapterSealer | undefined,
  ) {
    this.subscriptions = new PushSubscriptions(kv);
    this.dispatcher = createGuardedAgent(options.policy, { connections: 8 });
    const perSecond = options.perSecond ?? 20;
    this.pace = new SendPace({ lane: [{ limit: perSecond, windowMs: 1000 }] });
  }

  /** The VAPID key pair (made and stored on first use). */
  vapid(): Promise<VapidKeys> {
    this.keys ??= loadVapidKeys(this.kv(), this.sealer()).catch((err) => {
      this.keys = undefined;
      throw err;
    });
    return this.keys;
  }

  /** Sends one push; a gone subscription is removed. */
  async send(sub: PushSubscriptionRecord, payload: PushPayload): Promise<PushResult> {
    const { publicKey, privateKey } = await this.vapid();
    const body = JSON.stringify({
      ...payload,
      title: clip(payload.title),
      body: clip(payload.body),
    });
    const details = webpush.generateRequestDetails(
      { endpoint: sub.endpoint, keys: sub.keys },
      body,
      {
        vapidDetails: {
          subject: this.options.subject ?? 'mailto:hitl-relay@localhost',
          publicKey,
          privateKey,
        },
        TTL: 3600,
        contentEncoding: 'aes128gcm',
        urgency: 'high',
        topic: payload.tag.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32) || undefined,
      },
    );
    const headers = Object.fromEntries(
      Object.entries(details.headers)
        .filter(([k]) => k.toLowerCase() !== 'content-length')
        .map(([k, v]) => [k, String(v)]),
    );
    const lane = new URL(sub.endpoint).origin;
    const release = await this.pace.acquire(lane, 'high');
    try {
      const res = await request(sub.endpoint, {
        method: 'POST',
        headers,
        body: details.body as Buffer,
        dispatcher: this.dispatcher,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await res.body.dump();
      if (res.statusCode === 404 || res.statusCode === 410) {
        await this.subscriptions.remove(sub.user, sub.id);
        return 'gone';
      }
      if (res.statusCode === 429) this.pace.hold(lane, 60_000);
      if (res.statusCode >= 200 && res.statusCode < 300) return 'sent';
      this.log()?.warn({ status: res.statusCode, service: lane }, 'web push refused');
      return 'failed';
    } catch (err) {
      this.log()?.warn({ err: (err as Error).message, service: lane }, 'web push failed');
      return 'failed';
    } finally {
      release();
    }
  }

  /**
   * Sends a push to every subscription that follows `room` of the people `who` keeps (those who
   * may decide the case); resolves when all are answered, and logs the fan-out (what a test waits on).
   */
  async toRoom(
    room: string,
    payload: PushPayload,
    who: (users: string[]) => Promise<string[]>,
  ): Promise<PushResult[]> {
    const following = (await this.subscriptions.all()).filter(
      (s) => s.rooms.length === 0 || s.rooms.includes(room),
    );
    const users = [...new Set(following.map((s) => s.user))];
    const allowed = new Set(users.length ? await who(users) : []);
    const chosen = following.filter((s) => allowed.has(s.user));
    const results = await Promise.all(chosen.map((s) => this.send(s, payload)));
    this.log()?.debug(
      {
        case: payload.tag,
        room,
        sent: results.filter((r) => r === 'sent').length,
        skipped: following.length - chosen.length,
      },
      'web push fan-out',
    );
    return results;
  }

  close(): void {
    this.pace.close();
    void this.dispatcher.close();
  }
}
