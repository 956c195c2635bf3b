/**
 * A URL-mode elicitation's card has a link button to the full URL with its host stated apart
 * ("Opens <host>"), on every platform, and the relay never opens or fetches that URL: an
 * official-SDK upstream (sessionful 2025-11-25) elicits with a URL on a loopback server that
 * counts requests; a real relay with the web chat, the Telegram fake and the Slack fake; the
 * official SDK client downstream. The test reads what each platform received (the web message,
 * sendMessage's reply_markup, chat.postMessage's blocks). Once the ask ends the button is gone.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSlackAdapter } from '../../platforms/slack/index.ts';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openLinkOf } from '../../src/cases/open-link.ts';
import { FakeSlack } from '../fakes/slack-api.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { startSessionfulUpstream } from '../helpers/mcp-sessionful-upstream.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { SLACK_TEST_BOT_TOKEN, SLACK_TEST_SIGNING_SECRET } from '../platforms/slack/harness.ts';

let linkUrl = '';
let linkHits = 0;
let linkServer: HttpServer;
/** Ends each elicitation from the upstream's side (so the next test starts clean). */
const giveUp = new Map<string, AbortController>();

function upstreamServer() {
  const server = new McpServer({ name: 'linking-upstream', version: '1.0.0' });
  server.registerTool(
    'connect_account',
    { inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } },
    async ({ id }, ctx) => {
      const own = new AbortController();
      giveUp.set(id, own);
      const result = await ctx.mcpReq
        .elicitInput(
          { mode: 'url', message: 'Sign in', url: `${linkUrl}?state=${id}`, elicitationId: id },
          { signal: own.signal, timeout: 600_000 },
        )
        .then(JSON.stringify, (err: Error) => `error: ${err.message}`);
      return { content: [{ type: 'text', text: result }] };
    },
  );
  return server;
}

const CHAT = -1001234567890;
const CHANNEL = 'C0LINKS';
let relay: RelayHandle;
let up: Awaited<ReturnType<typeof startSessionfulUpstream>>;
let tg: FakeTelegramApi;
let slack: FakeSlack;
const clients: Record<string, Client> = {};

beforeAll(async () => {
  linkServer = createServer((_req, res) => {
    linkHits += 1;
    res.end('the sign-in page');
  });
  await new Promise<void>((r) => linkServer.listen(0, '127.0.0.1', () => r()));
  linkUrl = `http://127.0.0.1:${(linkServer.address() as AddressInfo).port}/sign-in`;
  up = await startSessionfulUpstream(upstreamServer);
  tg = await FakeTelegramApi.start();
  slack = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  const telegram = createTelegramAdapter({
    botToken: tg.token,
    apiRoot: tg.apiRoot,
    botInfo: tg.botInfo,
    pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
    retry: { retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
  });
  const slackAdapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      signingSecret: SLACK_TEST_SIGNING_SECRET,
      apiUrl: slack.apiUrl,
      mode: 'http',
      botId: slack.botId,
      botUserId: slack.botUserId,
    },
    { retryConfig: { retries: 0 } },
  );
  const upstream = (target: string) => ({ url: up.url, target, protocol: 'legacy' });
  relay = await startRelay({
    adapters: [createWebAdapter(), telegram, slackAdapter],
    configFile: {
      mcp_upstreams: {
        web: upstream('web:links'),
        tg: upstream(`telegram:${CHAT}`),
        sl: upstream(`slack:${CHANNEL}`),
      },
    },
  });
  for (const name of ['web', 'tg', 'sl'])
    clients[name] = await connectMcp(`${relay.url}/mcp/gateway/${name}`, { era: 'legacy' });
});
afterAll(async () => {
  for (const c of giveUp.values()) c.abort();
  for (const c of Object.values(clients)) await c.close();
  await relay?.stop();
  await tg?.close();
  await slack?.close();
  await up?.close();
  await new Promise((r) => linkServer?.close(r));
});

const host = () => new URL(linkUrl).host;
/** Starts an elicitation through upstream `name`; `id` names it. */
const elicit = (name: string, id: string) =>
  void clients[name]!.callTool({ name: 'connect_account', arguments: { id } }).catch(() => 0);

describe('the link button of a URL elicitation', () => {
  it('ELICIT-LINK-1 web chat: an open_link with the full URL and the host; gone once the ask ends', async () => {
    elicit('web', 'w1');
    const messages = async () => {
      const res = await request(`${relay.url}/web/api/rooms/links/messages`);
      return (await res.body.json()) as any[];
    };
    const card = await eventually(async () => (await messages()).find((m) => m.case && !m.final));
    expect(card.open_link).toEqual({
      label: `Opens ${host()}`,
      url: `${linkUrl}?state=w1`,
      host: host(),
    });
    expect(JSON.stringify(card)).toContain(`Site: ${host()}`);
    giveUp.get('w1')!.abort();
    const final = await eventually(async () =>
      (await messages()).find((m) => m.case === card.case && m.final),
    );
    expect(final.open_link).toBeUndefined();
    expect(linkHits).toBe(0);
  });

  it('ELICIT-LINK-2 Telegram: a URL button "Opens <host>" to the full URL, link previews off', async () => {
    elicit('tg', 't2');
    const body: any = await eventually(async () =>
      tg.calls('sendMessage').find((b) => JSON.stringify(b).includes('state=t2')),
    );
    const buttons = body.reply_markup.inline_keyboard.flat();
    expect(buttons).toContainEqual({ text: `Opens ${host()}`, url: `${linkUrl}?state=t2` });
    expect(body.link_preview_options).toEqual({ is_disabled: true });
    expect(body.text).toContain(`Site: ${host()}`);
    giveUp.get('t2')!.abort();
    expect(linkHits).toBe(0);
  });

  it('ELICIT-LINK-3 Slack: a URL button "Opens <host>" to the full URL, no unfurling', async () => {
    elicit('sl', 's3');
    const post = await eventually(async () =>
      slack.requests.find(
        (r) => r.method === 'chat.postMessage' && JSON.stringify(r.fields).includes('state=s3'),
      ),
    );
    const blocks = post.fields.blocks as any[];
    const buttons = blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements);
    const open = buttons.find((b) => b.url === `${linkUrl}?state=s3`);
    expect(open?.text.text).toBe(`Opens ${host()}`);
    expect(String(post.fields.unfurl_links)).toBe('false');
    giveUp.get('s3')!.abort();
    expect(linkHits).toBe(0);
  });

  it('ELICIT-LINK-4 the button names the host of the URL itself, only for http(s) without credentials', () => {
    expect(openLinkOf({ open_link: { url: 'https://xn--pple-43d.com/a?b=c' } })).toEqual({
      label: 'Opens xn--pple-43d.com',
      url: 'https://xn--pple-43d.com/a?b=c',
      host: 'xn--pple-43d.com',
    });
    expect(openLinkOf({ open_link: { url: 'https://аpple.com/' } })?.host).toBe('xn--pple-43d.com');
    for (const url of ['javascript:alert(1)', 'https://a:b@example.org/', 'not a url', 7])
      expect(openLinkOf({ open_link: { url } })).toBeUndefined();
    expect(openLinkOf({ open_link: { url: 'https://example.org', host: 'bank.com' } })?.label).toBe(
      'Opens example.org',
    );
  });
});
