/** The Web API calls the adapter makes, with bounded 429 handling and errors mapped in one place. */
import type { types } from '@slack/bolt';
import { type RetryOptions, WebClient } from '@slack/web-api';
import { PlatformError } from '../../src/errors.ts';
import type { Logger } from '../../src/log.ts';
import { type PaceRelease, type PaceWindow, SendPace } from '../../src/pace.ts';
import { toPlatformError } from './errors.ts';
import type { SlackAttachment } from './render.ts';
import { slackLogger } from './slack-logger.ts';

/** Rate-limit handling: how many times one call waits out a 429, and the longest wait it accepts. */
export interface SlackRateLimitPolicy {
  /** Retries after a 429 before the call fails with PlatformError 'rate_limited' (default 3). */
  maxRetries: number;
  /** A Retry-After longer than this fails the call at once (default 30 s); the relay retries later. */
  maxWaitMs: number;
  /** Waits `ms`; tests pass a recorder. */
  sleep: (ms: number) => Promise<void>;
}

/** How fast the adapter sends, per Slack's published rate limits. */
export interface SlackPace {
  /** chat.postMessage per channel: "about one message per second per channel". */
  postMessagePerChannel: PaceWindow[];
  /** chat.update over the workspace: Tier 3, "50+ per minute". */
  update: PaceWindow[];
}

/** Slack's documented limits (docs.slack.dev/apis/web-api/rate-limits, chat.postMessage, chat.update). */
export const SLACK_DEFAULT_PACE: SlackPace = {
  postMessagePerChannel: [{ limit: 1, windowMs: 1000 }],
  update: [{ limit: 50, windowMs: 60_000 }],
};

/** How the Web API client is built. */
export interface SlackApiSettings {
  botToken: string;
  apiUrl?: string;
  log: Logger;
  rateLimit: SlackRateLimitPolicy;
  /**
   * Retries of network failures and 5xx answers inside the SDK (p-retry options). Bounded on
   * purpose: the SDK's default retries for about 30 minutes, far longer than a tap or an edit may wait.
   */
  retryConfig: RetryOptions;
  /** Per-request timeout in ms. */
  timeoutMs: number;
  /** Send pace (default SLACK_DEFAULT_PACE). */
  pace?: SlackPace;
}

/** A paced call: the lane of `pace` it waits in; a 429 holds that lane (or the whole pace). */
interface Paced {
  pace: SendPace;
  lane: string;
  /** The limit is per workspace, not per lane: a 429 holds every lane. */
  wholePace?: boolean;
}

/** Sleeps with a timer that does not keep the process alive. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A Slack Web API client for one bot token. */
export class SlackApi {
  readonly client: WebClient;
  private readonly log: Logger;
  private readonly rateLimit: SlackRateLimitPolicy;
  private readonly postPace: SendPace;
  private readonly updatePace: SendPace;

  constructor(settings: SlackApiSettings) {
    this.log = settings.log;
    this.rateLimit = settings.rateLimit;
    const pace = settings.pace ?? SLACK_DEFAULT_PACE;
    // Counted from Slack's answer: a post delayed on its way cannot land within a second of the next.
    this.postPace = new SendPace(
      { lane: pace.postMessagePerChannel, fromAnswer: true },
      Date.now,
      'slack post pace',
    );
    this.updatePace = new SendPace({ lane: [], global: pace.update }, Date.now, 'slack edit pace');
    // The token is sent only as "Authorization: Bearer" (set by the constructor), never in a body.
    this.client = new WebClient(settings.botToken, {
      ...(settings.apiUrl ? { slackApiUrl: settings.apiUrl } : {}),
      logger: slackLogger(settings.log),
      // We wait out 429s ourselves, a bounded number of times, instead of the SDK pausing every
      // call of this client for up to ten retries.
      rejectRateLimitedCalls: true,
      retryConfig: settings.retryConfig,
      timeout: settings.timeoutMs,
    });
  }

  /** Rejects every send still waiting for its slot (the adapter is stopping). */
  close(): void {
    this.postPace.close();
    this.updatePace.close();
  }

  /** Runs one Web API call, waiting out 429 Retry-After up to the policy's bounds. */
  async call<T>(method: string, run: () => Promise<T>, paced?: Paced): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let release: PaceRelease | undefined;
      try {
        if (paced) release = await paced.pace.acquire(paced.lane);
        return await run();
      } catch (err) {
        // The 429 was an answer: the slot counts from now, and the hold below keeps the lane quiet.
        release?.();
        const failure = toPlatformError(err, method);
        if (failure.code !== 'rate_limited') throw failure;
        const waitMs = failure.retryAfterMs ?? 1000;
        if (attempt >= this.rateLimit.maxRetries || waitMs > this.rateLimit.maxWaitMs)
          throw failure;
        this.log.warn(
          { call: method, retryAfterMs: waitMs, attempt: attempt + 1 },
          'slack rate limited',
        );
        // Later sends in the same lane (or, for a per-workspace limit, all) wait it out too.
        if (paced?.wholePace) paced.pace.holdAll(waitMs);
        else if (paced) paced.pace.hold(paced.lane, waitMs);
        await this.rateLimit.sleep(waitMs);
      } finally {
        release?.();
      }
    }
  }

  /** chat.postMessage; returns the channel id and ts of the new message. */
  async postMessage(args: {
    channel: string;
    text: string;
    blocks?: types.KnownBlock[];
    attachments?: SlackAttachment[];
    threadTs?: string;
  }): Promise<{ channel: string; ts: string }> {
    const res = await this.call(
      'chat.postMessage',
      () =>
        this.client.chat.postMessage({
          channel: args.channel,
          text: args.text,
          ...(args.blocks ? { blocks: args.blocks } : {}),
          ...(args.attachments ? { attachments: args.attachments } : {}),
          ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
          // Nothing a service wrote may turn into a mention, a channel link or a preview, and the
          // message's own text (the notification) is not mrkdwn: `*bold*` stays as written.
          link_names: false,
          mrkdwn: false,
          unfurl_links: false,
          unfurl_media: false,
        }),
      { pace: this.postPace, lane: args.channel },
    );
    if (!res.ts) {
      throw new PlatformError('slack', 'chat.postMessage', 'remote', 'answered without ts');
    }
    return { channel: res.channel ?? args.channel, ts: res.ts };
  }

  /** chat.update of a message the bot posted. Slack has no "not modified" error: same content is ok. */
  async update(args: {
    channel: string;
    ts: string;
    text: string;
    blocks: types.KnownBlock[];
    attachments?: SlackAttachment[];
  }) {
    await this.call(
      'chat.update',
      () =>
        this.client.chat.update({
          channel: args.channel,
          ts: args.ts,
          text: args.text,
          blocks: args.blocks,
          ...(args.attachments ? { attachments: args.attachments } : {}),
          link_names: false,
        }),
      { pace: this.updatePace, lane: args.channel, wholePace: true },
    );
  }

  /** chat.postEphemeral: a message only `user` sees, in `channel`. */
  async postEphemeral(args: { channel: string; user: string; text: string }): Promise<void> {
    await this.call('chat.postEphemeral', () =>
      this.client.chat.postEphemeral({
        channel: args.channel,
        user: args.user,
        text: args.text,
        link_names: false,
      }),
    );
  }

  /**
   * chat.getPermalink: a link to a message, or null when Slack gives none (no retry: a `/pending`
   * answer waits on it inside Slack's 3 s acknowledgement window).
   */
  async permalink(channel: string, ts: string): Promise<string | null> {
    try {
      const res = await this.client.chat.getPermalink({ channel, message_ts: ts });
      return res.ok && typeof res.permalink === 'string' ? res.permalink : null;
    } catch {
      return null;
    }
  }

  /** users.info: the name a person shows in Slack (display name, else real name, else handle). */
  async displayName(user: string): Promise<string | undefined> {
    const res = await this.call('users.info', () => this.client.users.info({ user }));
    const u = res.user;
    const pick = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
    return (
      pick(u?.profile?.display_name) ??
      pick(u?.profile?.real_name) ??
      pick(u?.real_name) ??
      pick(u?.name)
    );
  }

  /** auth.test: the bot's ids, when they were not configured. */
  async authTest(): Promise<{ botId: string; botUserId: string; teamId?: string }> {
    const res = await this.call('auth.test', () => this.client.auth.test());
    if (!res.bot_id || !res.user_id) {
      throw new PlatformError(
        'slack',
        'auth.test',
        'forbidden',
        'answered without bot_id (not a bot token?)',
      );
    }
    return {
      botId: res.bot_id,
      botUserId: res.user_id,
      ...(res.team_id ? { teamId: res.team_id } : {}),
    };
  }
}
