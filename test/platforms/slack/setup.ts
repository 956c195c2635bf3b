/** One fake Slack, one started HTTP-mode adapter and the relay's routes, for adapter-level tests. */

import {
  createSlackAdapter,
  type SlackAdapter,
  type SlackAdapterOptions,
} from '../../../platforms/slack/index.ts';
import type { Tap, TapReply } from '../../../src/adapter.ts';
import { createLogger } from '../../../src/log.ts';
import { MemoryKeyValue } from '../../../src/store/memory-kv.ts';
import { FakeSlack } from '../../fakes/slack-api.ts';
import { SLACK_TEST_BOT_TOKEN, SLACK_TEST_PACE, SLACK_TEST_SIGNING_SECRET } from './harness.ts';
import { serveRoutes } from './relay.ts';

export interface SlackSetup {
  fake: FakeSlack;
  adapter: SlackAdapter;
  relayUrl: string;
  taps: Tap[];
  /** Every log line the adapter wrote. */
  logs: string[];
  /** Waits the fake asked for (Retry-After), in ms. */
  waits: number[];
  close(): Promise<void>;
}

/** Starts everything; `onTap` answers taps (default: submitted). */
export async function setupSlack(
  args: {
    onTap?: (tap: Tap) => Promise<TapReply>;
    options?: SlackAdapterOptions;
    knownIds?: boolean;
  } = {},
): Promise<SlackSetup> {
  const fake = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  fake.addUser({ id: 'U0ANN', name: 'ann', realName: 'Ann Example', displayName: 'Ann' });
  const waits: number[] = [];
  const adapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      signingSecret: SLACK_TEST_SIGNING_SECRET,
      apiUrl: fake.apiUrl,
      mode: 'http',
      ...(args.knownIds === false ? {} : { botId: fake.botId, botUserId: fake.botUserId }),
    },
    {
      retryConfig: { retries: 0 },
      pace: SLACK_TEST_PACE,
      rateLimit: {
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
      ...args.options,
    },
  );
  const relay = await serveRoutes(adapter.routes);
  const taps: Tap[] = [];
  const logs: string[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (line) => logs.push(line) } });
  await adapter.start({
    kv: new MemoryKeyValue(),
    log,
    onTap: async (tap) => {
      taps.push(tap);
      return args.onTap ? args.onTap(tap) : { outcome: 'submitted', text: 'Approved.', card: null };
    },
  });
  return {
    fake,
    adapter,
    relayUrl: relay.url,
    taps,
    logs,
    waits,
    async close() {
      await adapter.stop();
      await relay.close();
      await fake.close();
    },
  };
}

/** Every secret the tests use; none may appear in a request body or a log line. */
export const SLACK_TEST_SECRETS = [SLACK_TEST_BOT_TOKEN, SLACK_TEST_SIGNING_SECRET];
