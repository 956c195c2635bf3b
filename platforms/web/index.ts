/**
 * The web chat: a real browser page at /chat?room=NAME and a JSON API under /web/api/ so tests,
 * scripts and the demo can read messages and tap buttons. Messages live in the relay's key-value
 * store, so they survive restarts like every other platform's messages do; a page waits for its
 * room to change (long-poll) and is woken by the room's change signal from any replica.
 */
import { randomBytes } from 'node:crypto';
import type {
  AdapterContext,
  AdapterSignals,
  KeyValue,
  MessageRef,
  PlatformAdapter,
} from '../../src/adapter.ts';
import { PlatformError } from '../../src/errors.ts';
import type { Card } from '../../src/render/card.ts';
import type { WebConfig } from './config.ts';
import { WEB_ROOM } from './parse.ts';
import { type PushPayload, WebPusher } from './push.ts';
import { pushRoutes } from './push-routes.ts';
import { VAPID_PURPOSE } from './push-store.ts';
import { renderWebMessage, renderWebNotice } from './render.ts';
import { WebRooms } from './rooms.ts';
import { unauthorized, webRoutes } from './routes.ts';
import { signedIn } from './signin.ts';
import { INBOX_TOPIC, localSignals, RoomWaits, roomTopic } from './waits.ts';

export { readWebConfig, WEB_ENV_VARS, type WebConfig } from './config.ts';
export { WEB_ROOM } from './parse.ts';
export { WEB_MESSAGE_TTL_MS, WEB_ROOM_MAX_MESSAGES } from './rooms.ts';
export { WEB_WAIT_MAX_SECONDS, WEB_WAITS_PER_CLIENT } from './waits.ts';

/** Options of the web chat (its config, see config.ts). */
export type WebAdapterOptions = WebConfig;

const ROOM_RULE = 'room must be 1-64 of A-Z a-z 0-9 _ -';

/** The web chat adapter: rooms in the key-value store, pages woken by change signals. */
class WebAdapter implements PlatformAdapter {
  readonly platform = 'web';
  readonly routes;
  private ctx: AdapterContext | undefined;
  private readonly rooms = new WebRooms(() => this.kv());
  private readonly fallbackSignals = localSignals();
  readonly waits = new RoomWaits(() => this.signals());

  private readonly pusher: WebPusher | undefined;

  constructor(options: WebAdapterOptions) {
    this.pusher =
      options.push &&
      new WebPusher(
        options.push,
        () => this.kv(),
        () => this.ctx?.log,
        () => this.ctx?.sealer?.(VAPID_PURPOSE),
      );
    this.routes = [
      ...webRoutes({
        rooms: this.rooms,
        waits: this.waits,
        token: options.token,
        demo: options.demo ?? true,
        ctx: () => this.ctx,
      }),
      ...pushRoutes(
        () => (this.ctx ? this.pusher : undefined),
        (req) => (signedIn(req, options.token) ? null : unauthorized()),
      ),
    ];
  }

  /**
   * Tells the room's subscribed phones of the people who may decide case `key` there (in the
   * background: a slow push service holds no card). `ended`: its outcome, to who could decide it.
   */
  private push(room: string, payload: PushPayload, key: string, ended = false): void {
    const who = async (users: string[]) =>
      (await this.ctx?.deciders?.({ key, platform: 'web', address: room, users, ended })) ?? [];
    this.pusher?.toRoom(room, payload, who).catch((err: Error) => {
      this.ctx?.log.warn({ err: err.message }, 'web push failed');
    });
  }

  private kv(): KeyValue {
    if (!this.ctx) throw new PlatformError('web', 'kv', 'remote', 'the web chat is not started');
    return this.ctx.kv;
  }

  private signals(): AdapterSignals {
    return this.ctx?.signals ?? this.fallbackSignals;
  }

  /** A new room version, and every page waiting on the room (on any replica) is woken. */
  private async changed(room: string): Promise<void> {
    await this.rooms.bump(room);
    this.wake(room);
  }

  /** Wakes the room's waiting pages and every waiting inbox (on any replica). */
  private wake(room: string): void {
    this.signals().publish(roomTopic(room), INBOX_TOPIC);
  }

  async start(ctx: AdapterContext): Promise<void> {
    this.ctx = ctx;
  }

  async stop(): Promise<void> {
    this.ctx = undefined;
    this.pusher?.close();
  }

  async checkAddress(room: string): Promise<string | null> {
    return WEB_ROOM.test(room)
      ? null
      : `a web ${ROOM_RULE.replace('room must be', 'room name is')}`;
  }

  async post(room: string, card: Card, options?: { replyTo?: MessageRef }): Promise<MessageRef> {
    if (!WEB_ROOM.test(room)) throw new PlatformError('web', 'post', 'bad_request', ROOM_RULE);
    const id = randomBytes(8).toString('base64url');
    await this.rooms.append(room, {
      ...renderWebMessage(id, card, options?.replyTo?.id ?? null),
      room,
    });
    this.wake(room); // append made the new room version
    const url = `/chat?room=${room}`;
    this.push(room, { title: card.title, body: card.prompt, url, tag: card.caseId }, card.key);
    return { platform: 'web', address: room, id };
  }

  async update(ref: MessageRef, card: Card): Promise<void> {
    const m = await this.rooms.load(ref.id);
    if (!m) throw new PlatformError('web', 'update', 'not_found', 'message not found');
    const next = { ...renderWebMessage(ref.id, card, m.reply_to), room: ref.address, slot: m.slot };
    await this.rooms.save(next);
    await this.rooms.renewSlot(ref.address, next);
    await this.changed(ref.address);
    if (next.final && !m.final)
      this.push(
        ref.address,
        {
          title: card.title,
          body: card.status,
          url: `/chat?room=${ref.address}`,
          tag: card.caseId,
        },
        card.key,
        true,
      );
  }

  async notify(
    ref: MessageRef,
    text: string,
    link: { label: string; url: string } | null,
  ): Promise<void> {
    const id = randomBytes(8).toString('base64url');
    await this.rooms.append(ref.address, {
      ...renderWebNotice(id, text, link, ref.id),
      room: ref.address,
    });
    this.wake(ref.address); // append made the new room version
    const m = await this.rooms.load(ref.id);
    if (!m?.key || !m.case) return; // no case to tell its deciders about
    const url = `/chat?room=${ref.address}`;
    this.push(ref.address, { title: m.title ?? 'hitl-relay', body: text, url, tag: m.case }, m.key);
  }
}

/** Creates the web chat adapter. */
export function createWebAdapter(options: WebAdapterOptions = {}): PlatformAdapter {
  return new WebAdapter(options);
}
