/** Shared pieces of the Teams tests: fixtures, activity builders, a started adapter against the fake. */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TeamsConfig } from '../../../platforms/teams/config.ts';
import { createTeamsAdapter } from '../../../platforms/teams/index.ts';
import type { PaceClock } from '../../../platforms/teams/pace.ts';
import type {
  AdapterStrings,
  InboundResponse,
  PlatformAdapter,
  Tap,
  TapReply,
} from '../../../src/adapter.ts';
import { createLogger, type Logger } from '../../../src/log.ts';
import type { Card } from '../../../src/render/card.ts';
import { MemoryKeyValue } from '../../../src/store/memory-kv.ts';
import { FakeTeamsConnector } from '../../fakes/teams-connector.ts';

type Json = Record<string, unknown>;

/** A fixture from test/platforms/teams/fixtures/, parsed fresh each time. */
export function fixture(name: string): Json {
  return JSON.parse(
    readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'),
  ) as Json;
}

/** The bot as the activities name it. */
export const BOT = { id: '28:f5d48856-5b42-41a0-8c3a-c5f944b679b0', name: 'hitl-relay' };

/** A channel conversation id of the real shape, unique per call. */
export function channelId(): string {
  return `19:${randomUUID().replaceAll('-', '')}@thread.tacv2`;
}

/** conversationUpdate: the bot added to a team channel (docs fixture, ids and serviceUrl swapped). */
export function installActivity(
  serviceUrl: string,
  conversationId: string,
  type = 'channel',
): Json {
  const a = fixture('conversation-update-bot-added-team');
  a.id = `f:${randomUUID()}`;
  a.serviceUrl = serviceUrl;
  a.recipient = BOT;
  a.membersAdded = [{ id: BOT.id }];
  a.conversation = { isGroup: type !== 'personal', conversationType: type, id: conversationId };
  return a;
}

/** A message mentioning the bot with `text` (docs fixture). */
export function mentionActivity(serviceUrl: string, conversationId: string, text: string): Json {
  const a = fixture('message-mention-channel');
  a.id = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  a.serviceUrl = serviceUrl;
  a.recipient = BOT;
  a.conversation = { id: `${conversationId};messageid=1481567603816`, conversationType: 'channel' };
  a.text = `<at>${BOT.name}</at> ${text}`;
  a.entities = [{ type: 'mention', mentioned: BOT, text: `<at>${BOT.name}</at>` }];
  delete a.attachments;
  return a;
}

/** An Action.Execute invoke (`adaptiveCard/action`) for `payload` on card `replyToId`. */
export function executeInvoke(
  serviceUrl: string,
  conversationId: string,
  replyToId: string,
  payload: string,
  user: { id: string; name?: string },
  id = `f:${randomUUID()}`,
): Json {
  const a = fixture('invoke-adaptive-card-action');
  a.id = id;
  a.serviceUrl = serviceUrl;
  a.recipient = BOT;
  a.from = user;
  a.conversation = { id: conversationId, conversationType: 'channel' };
  a.replyToId = replyToId;
  a.value = {
    action: { type: 'Action.Execute', id: 'hitl-action', verb: payload, data: { hitl: payload } },
    trigger: 'manual',
  };
  return a;
}

/** An Action.Submit message (older clients) for `payload` on card `replyToId`. */
export function submitMessage(
  serviceUrl: string,
  conversationId: string,
  replyToId: string,
  payload: string,
  user: { id: string; name?: string },
): Json {
  const a = fixture('message-action-submit');
  a.id = `f:${randomUUID()}`;
  a.serviceUrl = serviceUrl;
  a.recipient = BOT;
  a.from = user;
  a.conversation = { id: conversationId };
  a.replyToId = replyToId;
  a.value = { hitl: payload };
  delete a.text;
  return a;
}

/** A card with every field set. */
export function makeCard(overrides: Partial<Card> = {}): Card {
  const key = overrides.key ?? 'k7Qa9';
  return {
    caseId: 'case-1',
    key,
    title: 'Approval needed',
    prompt: 'Deploy v2.3 to production?',
    lines: ['Service: deployer', 'Environment: prod'],
    hint: 'Approve cannot be undone.',
    actions: [
      { action: 'approve', label: 'Approve', style: 'primary', payload: `hitl:${key}:approve` },
      { action: 'reject', label: 'Reject', style: 'danger', payload: `hitl:${key}:reject` },
    ],
    link: { label: 'Details', url: 'https://service.example/review/1' },
    status: 'Waiting for a decision',
    final: false,
    ...overrides,
  } as Card;
}

/** No waiting in tests: sleeps resolve at once (and are recorded). */
export function instantClock(): PaceClock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => Date.now(),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  };
}

/** A config for unauthenticated test mode with nothing that waits. */
export function testConfig(overrides: Partial<TeamsConfig> = {}): TeamsConfig {
  return {
    appId: '',
    appType: 'MultiTenant',
    allowUnauthenticated: true,
    tuning: {
      pace: [],
      retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 5000 },
      invokeDeadlineMs: 2000,
    },
    ...overrides,
  };
}

/** A started adapter on the fake connector, an in-memory store and a log sink. */
export interface Rig {
  fake: FakeTeamsConnector;
  adapter: PlatformAdapter;
  kv: MemoryKeyValue;
  log: Logger;
  logLines: string[];
  taps: Tap[];
  clock: ReturnType<typeof instantClock>;
  /** Delivers an activity to POST /api/messages through the adapter's route. */
  deliver(activity: Json, headers?: Record<string, string>): Promise<InboundResponse>;
  /** Installs the bot in a fresh channel; resolves to its conversation id and key. */
  install(conversationId?: string): Promise<{ conversationId: string; key: string }>;
  close(): Promise<void>;
}

/** Starts a rig; `onTap` defaults to answering "submitted" with the tapped card. */
export async function startRig(
  options: {
    onTap?: (tap: Tap) => Promise<TapReply>;
    config?: Partial<TeamsConfig>;
    kv?: MemoryKeyValue;
    /** The relay's LOCALE texts (default: English). */
    strings?: AdapterStrings;
  } = {},
): Promise<Rig> {
  const fake = await FakeTeamsConnector.start();
  const clock = instantClock();
  const adapter = createTeamsAdapter(testConfig(options.config), clock);
  const kv = options.kv ?? new MemoryKeyValue();
  const logLines: string[] = [];
  const log = createLogger({
    level: 'debug',
    destination: { write: (l) => void logLines.push(l) },
  });
  const taps: Tap[] = [];
  const onTap =
    options.onTap ??
    (async (): Promise<TapReply> => ({
      outcome: 'submitted',
      text: 'Approved.',
      card: makeCard(),
    }));
  await adapter.start({
    kv,
    log,
    ...(options.strings ? { strings: options.strings } : {}),
    onTap: (tap) => {
      taps.push(tap);
      return onTap(tap);
    },
  });
  const route = adapter.routes.find((r) => r.path === '/api/messages');
  if (!route) throw new Error('no /api/messages route');
  const deliver = (activity: Json, headers: Record<string, string> = {}) => {
    const req = {
      method: 'POST',
      path: '/api/messages',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json', ...headers },
      rawBody: Buffer.from(JSON.stringify(activity)),
      params: {},
    };
    return route.handle(req);
  };
  return {
    fake,
    adapter,
    kv,
    log,
    logLines,
    taps,
    clock,
    deliver,
    async install(conversationId = channelId()) {
      const res = await deliver(installActivity(fake.serviceUrl, conversationId));
      if (res.status !== 200) throw new Error(`install answered ${res.status}`);
      const welcome = fake.conversation(conversationId).at(-1)?.versions[0];
      const key = /teams:([A-Za-z0-9_-]+)/.exec(String(welcome?.text))?.[1];
      if (!key) throw new Error('no welcome with a target');
      return { conversationId, key };
    },
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}
