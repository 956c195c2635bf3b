/** The Discord REST calls the adapter makes, through @discordjs/rest (per-bucket queues, 429 waits). */

import { REST } from '@discordjs/rest';
import { PlatformError } from '../../src/errors.ts';
import { type PaceRelease, type PaceWindow, SendPace } from '../../src/pace.ts';
import type { DiscordModal } from './ask-modal.ts';
import { DISCORD_SNOWFLAKE_PATTERN } from './config.ts';
import { toPlatformError } from './errors.ts';
import type { DiscordMessagePayload } from './render.ts';

/**
 * The longest rate-limit wait we sit out inside one call. @discordjs/rest waits out every 429 on
 * its own; beyond this we give up and report `rate_limited` so the relay can retry later without
 * holding a request open (and without losing the update).
 */
export const DISCORD_MAX_RATE_LIMIT_WAIT_MS = 10_000;

/**
 * Discord's global limit: 50 requests a second per bot token. @discordjs/rest queues per route
 * bucket (and those buckets it learns from X-RateLimit-* headers), but counts the global limit in
 * fixed one-second windows; measured against a sliding window (bench/pace.ts, 10 channels at once)
 * that let 86 requests over the limit. Bot-token calls wait in this sliding window first.
 * Interaction callbacks and follow-ups do not count against the global limit and never wait here.
 */
export const DISCORD_GLOBAL_PACE: PaceWindow[] = [{ limit: 50, windowMs: 1000 }];

/**
 * Message create, per channel: Discord announces a 5-per-5-s bucket in X-RateLimit-* headers.
 * @discordjs/rest learns a bucket only from a response, and requests queued under the route before
 * that keep their own queue beside the bucket's: a burst into a channel went over it (bench/pace.ts,
 * 10 channels: about one 429 per channel per window). This pace holds each channel to the bucket
 * from the first send on, counting each send from Discord's answer (src/pace.ts, `fromAnswer`).
 */
export const DISCORD_CHANNEL_PACE: PaceWindow[] = [{ limit: 5, windowMs: 5000 }];

/** What the REST client needs. */
export interface DiscordApiOptions {
  token: string;
  /** The global pace for bot-token calls (default DISCORD_GLOBAL_PACE). */
  globalPace?: PaceWindow[];
  /** The per-channel pace of message create (default DISCORD_CHANNEL_PACE). */
  channelPace?: PaceWindow[];
  /** REST base without the version; Discord's own when absent. */
  apiUrl?: string;
  maxRateLimitWaitMs?: number;
}

/** A created message, as much of it as we keep. */
export interface CreatedMessage {
  id: string;
  channel_id: string;
}

/** A message body with an optional reply reference (reminders). */
export type DiscordCreateMessageBody = DiscordMessagePayload & {
  message_reference?: { message_id: string; fail_if_not_exists: false };
};

/** An interaction response (the body of `/interactions/:id/:token/callback` or of our HTTP answer). */
export interface DiscordInteractionResponse {
  type: 1 | 4 | 6 | 7 | 9;
  /** A message (4, 7) or, for MODAL (9), the modal (custom_id, title, text inputs). */
  data?: (Partial<DiscordMessagePayload> & { flags?: number }) | DiscordModal;
}

/** Throws unless `id` is a snowflake, so no caller-provided text ever lands in a URL path. */
export function assertSnowflake(call: string, what: string, id: string): void {
  if (!DISCORD_SNOWFLAKE_PATTERN.test(id)) {
    throw new PlatformError('discord', call, 'bad_request', `${what} must be a numeric Discord id`);
  }
}

/** Thin, typed wrapper over REST; every failure comes out as PlatformError. */
export class DiscordApi {
  readonly rest: REST;
  private readonly pace: SendPace;
  private readonly channelPace: SendPace;

  constructor(options: DiscordApiOptions) {
    this.channelPace = new SendPace(
      { lane: options.channelPace ?? DISCORD_CHANNEL_PACE, fromAnswer: true },
      Date.now,
      'discord channel pace',
    );
    this.pace = new SendPace(
      { lane: [], global: options.globalPace ?? DISCORD_GLOBAL_PACE },
      Date.now,
      'discord send pace',
    );
    const maxWait = options.maxRateLimitWaitMs ?? DISCORD_MAX_RATE_LIMIT_WAIT_MS;
    this.rest = new REST({
      version: '10',
      ...(options.apiUrl ? { api: options.apiUrl } : {}),
      // Short waits are sat out (and the request retried by the queue); long ones are handed back.
      rejectOnRateLimit: (data) => data.retryAfter > maxWait,
    }).setToken(options.token);
  }

  /** One REST call: bot-token calls wait in the global pace, message creates also in their channel's. */
  private async call<T>(
    call: string,
    run: () => Promise<unknown>,
    paced = true,
    channel?: string,
  ): Promise<T> {
    let release: PaceRelease | undefined;
    try {
      if (channel) release = await this.channelPace.acquire(channel);
      if (paced) await this.pace.acquire('bot');
      return (await run()) as T;
    } catch (error) {
      throw toPlatformError(call, error);
    } finally {
      release?.();
    }
  }

  /** GET /users/@me: the bot itself; checks the token at start-up. */
  currentUser(): Promise<{ id: string; username?: string }> {
    return this.call('GET /users/@me', () => this.rest.get('/users/@me'));
  }

  /** POST /channels/:id/messages */
  createMessage(channelId: string, body: DiscordCreateMessageBody): Promise<CreatedMessage> {
    const call = 'POST /channels/:id/messages';
    assertSnowflake(call, 'channel id', channelId);
    return this.call(
      call,
      () => this.rest.post(`/channels/${channelId}/messages`, { body }),
      true,
      channelId,
    );
  }

  /** PATCH /channels/:id/messages/:id (content, components and allowed_mentions replaced). */
  async editMessage(
    channelId: string,
    messageId: string,
    body: DiscordMessagePayload,
  ): Promise<void> {
    const call = 'PATCH /channels/:id/messages/:id';
    assertSnowflake(call, 'channel id', channelId);
    assertSnowflake(call, 'message id', messageId);
    await this.call(call, () =>
      this.rest.patch(`/channels/${channelId}/messages/${messageId}`, { body }),
    );
  }

  /** POST /interactions/:id/:token/callback (gateway mode). Interaction routes take no bot token. */
  async interactionCallback(
    interactionId: string,
    token: string,
    body: DiscordInteractionResponse,
  ): Promise<void> {
    const call = 'POST /interactions/:id/:token/callback';
    assertSnowflake(call, 'interaction id', interactionId);
    await this.call(
      call,
      () =>
        this.rest.post(`/interactions/${interactionId}/${encodeURIComponent(token)}/callback`, {
          body,
          auth: false,
        }),
      false,
    );
  }

  /** POST /webhooks/:application_id/:token: an interaction follow-up (flags 64 makes it ephemeral). */
  async followUp(
    applicationId: string,
    token: string,
    body: Partial<DiscordMessagePayload> & { flags?: number },
  ): Promise<void> {
    const call = 'POST /webhooks/:application_id/:token';
    assertSnowflake(call, 'application id', applicationId);
    await this.call(
      call,
      () =>
        this.rest.post(`/webhooks/${applicationId}/${encodeURIComponent(token)}`, {
          body,
          auth: false,
        }),
      false,
    );
  }

  /** PUT /applications/:id/commands (or a guild's commands): replaces the command set. */
  putCommands(applicationId: string, commands: unknown[], guildId?: string): Promise<unknown[]> {
    const call = guildId
      ? 'PUT /applications/:id/guilds/:id/commands'
      : 'PUT /applications/:id/commands';
    assertSnowflake(call, 'application id', applicationId);
    if (guildId) assertSnowflake(call, 'guild id', guildId);
    const route: `/${string}` = guildId
      ? `/applications/${applicationId}/guilds/${guildId}/commands`
      : `/applications/${applicationId}/commands`;
    return this.call(call, () => this.rest.put(route, { body: commands }));
  }
}
