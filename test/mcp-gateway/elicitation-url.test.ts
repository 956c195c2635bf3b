/**
 * URL-mode elicitation answered in chat, end to end: an upstream written with the official SDK
 * (McpServer, sessionful 2025-11-25) whose tool calls `elicitInput({mode: "url"})` and, once the
 * person consented, sends `notifications/elicitation/complete`; a real relay with it in
 * `mcp_upstreams`; the official SDK client downstream. The card shows the full URL and its host;
 * Confirm reaches the upstream as `accept` without content, Decline as `decline`, an ask that
 * ends without an answer as `cancel`; the completion is on the case's history and its cards.
 * The URL points at a loopback server that counts requests: the relay never opens it.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import type { InlineKeyboardButton, User } from 'grammy/types';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { startSessionfulUpstream } from '../helpers/mcp-sessionful-upstream.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

/** What the upstream received back from each URL elicitation. */
const answers: unknown[] = [];
let linkUrl = '';
let linkHits = 0;
let linkServer: HttpServer;

function upstreamServer() {
  const server = new McpServer({ name: 'linking-upstream', version: '1.0.0' });
  server.registerTool(
    'connect_account',
    {
      inputSchema: z.object({ id: z.string(), url: z.string().optional() }),
      annotations: { readOnlyHint: true },
    },
    async ({ id, url }, ctx) => {
      const result = await ctx.mcpReq.elicitInput({
        mode: 'url',
        message: 'Sign in to your account',
        url: url ?? `${linkUrl}?state=${id}`,
        elicitationId: `el-${id}`,
      });
      answers.push(result);
      if (result.action === 'accept')
        await server.server.createElicitationCompletionNotifier(`el-${id}`)();
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    },
  );
  return server;
}

let relay: RelayHandle;
let stopUpstream: () => Promise<void>;
let client: Client;
let tgClient: Client;
let tg: FakeTelegramApi;
const CHAT = -1001234567890;
const ANN: User = { id: 111222333, is_bot: false, first_name: 'Ann' };

beforeAll(async () => {
  linkServer = createServer((_req, res) => {
    linkHits += 1;
    res.end('the sign-in page');
  });
  await new Promise<void>((r) => linkServer.listen(0, '127.0.0.1', () => r()));
  linkUrl = `http://127.0.0.1:${(linkServer.address() as AddressInfo).port}/sign-in`;
  const up = await startSessionfulUpstream(upstreamServer);
  stopUpstream = up.close;
  tg = await FakeTelegramApi.start();
  const telegram = createTelegramAdapter({
    botToken: tg.token,
    apiRoot: tg.apiRoot,
    botInfo: tg.botInfo,
    pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
    retry: { retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
    tapAnswerWaitMs: 10_000,
  });
  relay = await startRelay({
    adapters: [createWebAdapter(), telegram],
    configFile: {
      mcp_upstreams: {
        linking: { url: up.url, target: 'web:links', protocol: 'legacy', timeout_seconds: 10 },
        linking_tg: { url: up.url, target: `telegram:${CHAT}`, protocol: 'legacy' },
      },
    },
  });
  client = await connectMcp(`${relay.url}/mcp/gateway/linking`, { era: 'legacy' });
  tgClient = await connectMcp(`${relay.url}/mcp/gateway/linking_tg`, { era: 'modern' });
});
afterAll(async () => {
  await client?.close();
  await tgClient?.close();
  await relay?.stop();
  await tg?.close();
  await stopUpstream?.();
  await new Promise((r) => linkServer?.close(r));
});

async function json(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${relay.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}
const messages = async () => (await json('GET', '/web/api/rooms/links/messages')).body as any[];
const cardOf = async (caseId: string) => (await messages()).find((m) => m.case === caseId);
const seen = new Set<string>();
const newCard = () =>
  eventually(async () => {
    const m = (await messages()).find((x) => x.case && !x.final && !seen.has(x.case));
    if (m) seen.add(m.case);
    return m;
  });
const tap = async (m: any, action: string) => {
  const r = await json('POST', `/web/api/rooms/links/messages/${m.id}/actions/${action}`, {
    user: { id: 'ann', name: 'Ann' },
  });
  expect(r.body.outcome, JSON.stringify(r.body)).toBe('submitted');
};

describe('URL-mode elicitation answered in the web chat', () => {
  it('ELICIT-URL-1 the card shows the full URL and its host; Confirm is consent: accept without content; the completion is on the card', async () => {
    const call = client.callTool({ name: 'connect_account', arguments: { id: 'a1' } });
    const card = await newCard();
    const shown = JSON.stringify(card);
    expect(shown).toContain('linking asks you to open a link: Sign in to your account');
    expect(shown).toContain(`${linkUrl}?state=a1`);
    expect(shown).toContain(`Site: ${new URL(linkUrl).host} (not encrypted: http)`);
    await tap(card, 'confirm');
    const result = await call;
    expect(answers.at(-1)).toEqual({ action: 'accept' });
    expect((result.content as any[])[0].text).toBe('{"action":"accept"}');
    // The upstream's notifications/elicitation/complete: the final card says so.
    const done = await eventually(async () => {
      const m = await cardOf(card.case);
      return m?.final && JSON.stringify(m).includes('linking says the interaction') ? m : undefined;
    });
    expect(JSON.stringify(done)).toContain('linking says the interaction at the link is complete.');
    const history = (await json('GET', `/v1/cases/${card.case}?history=true`)).body;
    expect(JSON.stringify(history)).toContain('mcp_elicitation_complete');
    expect(linkHits).toBe(0);
  });

  it('ELICIT-URL-2 Decline reaches the upstream as decline; no completion', async () => {
    const call = client.callTool({ name: 'connect_account', arguments: { id: 'b2' } });
    await tap(await newCard(), 'cancel');
    await call;
    expect(answers.at(-1)).toEqual({ action: 'decline' });
    expect(linkHits).toBe(0);
  });

  it('ELICIT-URL-3 a URL the relay will not show (javascript:, user:password@) is cancel, with a log line, and no card', async () => {
    for (const url of ['javascript:alert(1)', 'https://ann:pw@example.org/x']) {
      const before = (await messages()).length;
      const result = await client.callTool({
        name: 'connect_account',
        arguments: { id: 'c3', url },
      });
      expect((result.content as any[])[0].text).toBe('{"action":"cancel"}');
      expect((await messages()).length).toBe(before);
    }
    const lines = logLines.filter((l) => l.includes('URL elicitation cannot be asked'));
    expect(lines.join('\n')).toContain('not https or http');
    expect(lines.join('\n')).toContain('carries credentials');
    expect(lines.join('\n')).not.toContain('ann:pw');
  });
});

describe('URL-mode elicitation answered in Telegram', () => {
  type Button = InlineKeyboardButton.CallbackButton;
  const text = (id: number) => {
    const m = tg.message(CHAT, id)?.message as { text?: string } | undefined;
    return m?.text ?? '';
  };
  it('ELICIT-URL-4 the Telegram card shows the URL and its host; Confirm there is accept; the edited card says completed', async () => {
    const before = tg.messages(CHAT).length;
    const call = tgClient.callTool({ name: 'connect_account', arguments: { id: 't4' } });
    await eventually(async () => tg.messages(CHAT).length > before, 10_000, 'the card');
    const id = tg.messages(CHAT).at(-1)!.message.message_id;
    expect(text(id)).toContain(`${linkUrl}?state=t4`);
    expect(text(id)).toContain(`Site: ${new URL(linkUrl).host}`);
    const buttons = (tg.message(CHAT, id)?.message.reply_markup?.inline_keyboard ?? [])
      .flat()
      .filter((b): b is Button => 'callback_data' in b);
    const confirm = buttons.find((b) => /confirm/i.test(b.text));
    expect(confirm, JSON.stringify(buttons)).toBeDefined();
    const u = tg.queueUpdate(
      tg.callbackQuery({
        chatId: CHAT,
        messageId: id,
        data: confirm!.callback_data,
        from: ANN,
      }) as never,
    );
    await tg.waitForAnswer(u.callback_query!.id);
    const result = await call;
    expect((result.content as any[])[0].text).toBe('{"action":"accept"}');
    await eventually(
      async () => text(id).includes('linking_tg says the interaction at the link is complete.'),
      10_000,
      'the completion on the card',
    );
    expect(linkHits).toBe(0);
  });
});
