/**
 * Benchmark 1, tap to submit: a tap delivered by the fake platform -> the submit POST at the fake
 * HITL service -> the edit at the fake platform. Web chat (POST .../actions/:action), Telegram
 * in webhook mode (the fake Bot API POSTs the update with its secret header), and Slack, Discord
 * and Teams over HTTP (bench/lib/tap-*.ts). Baseline: a bare node:http + undici relay that only
 * receives the tap, POSTs and edits (bench/lib/bare-relay.ts, bench/lib/bare-chat.ts).
 * Taps run one at a time, relay and baseline interleaved, so both see the same machine.
 */
import type { Update } from 'grammy/types';
import { createWebAdapter, WEB_ROOM_MAX_MESSAGES } from '../platforms/web/index.ts';
import { FakeTelegramApi } from '../test/fakes/telegram-api.ts';
import { benchArgs, wants } from './lib/args.ts';
import { startBareChat } from './lib/bare-chat.ts';
import { type BareRelay, startBareRelay } from './lib/bare-relay.ts';
import { startFastService } from './lib/hitl-service.ts';
import { Marks } from './lib/marks.ts';
import { startPhaseProfile } from './lib/profile.ts';
import { startBenchRelay } from './lib/relay.ts';
import { jsonClient, pool } from './lib/run.ts';
import { type Figure, fmt, machine, report, summary } from './lib/stats.ts';
import type { ChatTapBench, TapSample } from './lib/tap-chat.ts';
import { discordTapBench } from './lib/tap-discord.ts';
import { slackTapBench } from './lib/tap-slack.ts';
import { teamsTapBench } from './lib/tap-teams.ts';
import { benchTelegramAdapter, NO_PACE, WEBHOOK_PATH } from './lib/telegram.ts';

const RELAY_CHAT = -1001000000001;
const BARE_CHAT = -1001000000002;
// A web room keeps its newest WEB_ROOM_MAX_MESSAGES, so the cases are spread over rooms of at
// most half that (each tap still finds its card; one room or many costs the relay the same).
const ROOM_CASES = Math.floor(WEB_ROOM_MAX_MESSAGES / 2);
const roomOf = (i: number) => `bench${Math.floor(i / ROOM_CASES)}`;
const USER = { id: '4242', name: 'Ann Example' };

const args = benchArgs();
const taps = args.full ? 1000 : 1000;
// Slack, Discord and Teams: fewer taps at the quick size (each platform adds a relay and a bare side).
const chatTaps = args.full ? 1000 : 300;
const warmup = 50;
const total = taps + warmup;
const chatTotal = chatTaps + warmup;
// --only=web,telegram,slack,discord,teams picks platforms (all by default).
const webOn = wants(args, 'web');
const telegramOn = wants(args, 'telegram');

const marks = new Marks();
const service = await startFastService();
service.onSubmit = (caseId) => marks.mark(`submit:${caseId}`);
const fake = await FakeTelegramApi.start();
const fakeCall = fake.call.bind(fake);
fake.call = (method, p) => {
  const answer = fakeCall(method, p);
  if (method === 'editMessageText') marks.mark(`edit:tg:${p.chat_id}:${p.message_id}`);
  if (method === 'answerCallbackQuery') marks.mark(`answer:${p.callback_query_id}`);
  return answer;
};
const web = createWebAdapter();
const webUpdate = web.update.bind(web);
web.update = async (ref, card) => {
  await webUpdate(ref, card);
  marks.mark(`edit:web:${ref.id}`);
};
// The fake has no rate limit here, so the adapter does not pace either (pacing is benchmark 4).
const { adapter: telegram, secret } = benchTelegramAdapter(fake, NO_PACE);
const bareChat = await startBareChat();
const chats: ChatTapBench[] = [];
for (const [name, make] of [
  ['slack', slackTapBench],
  ['discord', discordTapBench],
  ['teams', teamsTapBench],
] as const) {
  if (wants(args, name)) chats.push(await make({ marks, bare: bareChat }));
}
const r = await startBenchRelay({ adapters: [web, telegram, ...chats.map((c) => c.adapter)] });
for (const c of chats) await c.attach(r.url);
const bare: BareRelay = await startBareRelay({
  telegramApi: `${fake.apiRoot}/bot${fake.token}`,
  webhookSecret: secret,
});
bare.onWebEdit = (id) => marks.mark(`edit:web:${id}`);
const http = jsonClient(32);
const postJson = (url: string, body: unknown) => http.post(url, body);

// Set-up (not timed): cases through the relay's real intake, and the same number for the baseline.
const started = performance.now();
await pool(total, 16, async (i) => {
  const relayCases: Array<[string, string]> = [];
  if (webOn) relayCases.push([`web:${roomOf(i)}`, `rw${i}`]);
  if (telegramOn) relayCases.push([`telegram:${RELAY_CHAT}`, `rt${i}`]);
  for (const c of i < chatTotal ? chats : []) {
    relayCases.push([c.target(i), `r${c.name}${i}`]);
    await c.addBare(
      `b${c.name}${i}`,
      service.create(`b${c.name}${i}`).hitl as Record<string, string>,
    );
  }
  for (const [target, id] of relayCases) {
    const res = await postJson(`${r.url}/v1/cases`, { target, response: service.create(id) });
    if (res.status !== 201)
      throw new Error(`intake answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  if (webOn) {
    const bw = service.create(`bw${i}`).hitl as Record<string, string>;
    bare.web.set(`bw${i}`, {
      submitUrl: bw.submit_url!,
      token: bw.submit_token!,
      text: bw.prompt!,
    });
  }
  if (telegramOn) await bareTelegramCase(i);
});

async function bareTelegramCase(i: number) {
  const bt = service.create(`bt${i}`).hitl as Record<string, string>;
  const sent = await postJson(`${fake.apiRoot}/bot${fake.token}/sendMessage`, {
    chat_id: BARE_CHAT,
    text: `<b>Approval needed</b>\n\n${bt.prompt}`,
    parse_mode: 'HTML',
    reply_markup: {
      inline_keyboard: [[{ text: 'Approve', callback_data: `hitl:bt${i}:approve` }]],
    },
  });
  bare.telegram.set(`bt${i}`, {
    submitUrl: bt.submit_url!,
    token: bt.submit_token!,
    chatId: BARE_CHAT,
    messageId: sent.body.result.message_id,
    text: bt.prompt!,
  });
}
const relayWeb = new Map<string, string>(); // service case id -> web message id
for (let first = 0; webOn && first < total; first += ROOM_CASES) {
  const room = await http.get(`${r.url}/web/api/rooms/${roomOf(first)}/messages`);
  for (const m of room.body as Array<{ id: string; prompt: string }>)
    relayWeb.set(/build (\S+) to/.exec(m.prompt)![1]!, m.id);
}
const relayTg = new Map<string, { messageId: number; data: string }>();
for (const m of fake.messages(RELAY_CHAT)) {
  const id = /build (\S+) to/.exec(m.sent)![1]!;
  const data = m.everCallbackData.find((d) => d.endsWith(':approve'))!;
  relayTg.set(id, { messageId: m.message.message_id, data });
}
for (const c of chats) c.indexRelay();
console.log(
  `set-up: ${total * ((webOn ? 1 : 0) + (telegramOn ? 1 : 0)) + chats.length * chatTotal} cases through POST /v1/cases in ${fmt((performance.now() - started) / 1000)} s`,
);

type Sample = TapSample;
const samples: Record<string, Sample[]> = { rw: [], bw: [], rt: [], bt: [] };
for (const c of chats) {
  samples[`r${c.name}`] = [];
  samples[`b${c.name}`] = [];
}
const outcomes = new Map<string, number>();

async function webTap(kind: 'rw' | 'bw', i: number): Promise<Sample> {
  const caseId = `${kind}${i}`;
  const messageId = kind === 'rw' ? relayWeb.get(caseId)! : caseId;
  const base = kind === 'rw' ? r.url : bare.url;
  const submitted = marks.wait(`submit:${caseId}`);
  const edited = marks.wait(`edit:web:${messageId}`);
  const t0 = performance.now();
  const res = await postJson(
    `${base}/web/api/rooms/${roomOf(i)}/messages/${messageId}/actions/approve`,
    { user: USER },
  );
  const reply = performance.now();
  outcomes.set(
    `${kind}:${res.body.outcome}`,
    (outcomes.get(`${kind}:${res.body.outcome}`) ?? 0) + 1,
  );
  if (res.body?.outcome !== 'submitted')
    throw new Error(`${kind} tap on ${caseId} answered ${res.status}: ${JSON.stringify(res.body)}`);
  const [s, e] = await Promise.all([submitted, edited]);
  return { submit: s - t0, edit: e - t0, reply: reply - t0 };
}

async function telegramTap(kind: 'rt' | 'bt', i: number): Promise<Sample> {
  const caseId = `${kind}${i}`;
  const chatId = kind === 'rt' ? RELAY_CHAT : BARE_CHAT;
  const target =
    kind === 'rt'
      ? relayTg.get(caseId)!
      : { messageId: bare.telegram.get(caseId)!.messageId!, data: `hitl:${caseId}:approve` };
  const update: Update = fake.callbackQuery({
    chatId,
    messageId: target.messageId,
    data: target.data,
    from: FakeTelegramApi.user(Number(USER.id), 'Ann', { last_name: 'Example' }),
  });
  const queryId = update.callback_query!.id;
  const submitted = marks.wait(`submit:${caseId}`);
  const edited = marks.wait(`edit:tg:${chatId}:${target.messageId}`);
  const answered = marks.wait(`answer:${queryId}`);
  const t0 = performance.now();
  const res = await fake.deliverWebhook(update, {
    url: `${kind === 'rt' ? r.url : bare.url}${WEBHOOK_PATH}`,
  });
  if (res.status !== 200) throw new Error(`${kind} webhook answered ${res.status}`);
  const [s, e, a] = await Promise.all([submitted, edited, answered]);
  return { submit: s - t0, edit: e - t0, reply: a - t0 };
}

const runs: Array<[string, (i: number) => Promise<Sample>, number]> = [];
if (webOn) runs.push(['bw', (i) => webTap('bw', i), total], ['rw', (i) => webTap('rw', i), total]);
if (telegramOn)
  runs.push(['bt', (i) => telegramTap('bt', i), total], ['rt', (i) => telegramTap('rt', i), total]);
for (const c of chats) {
  runs.push(
    [`b${c.name}`, (i) => c.tap('bare', `b${c.name}${i}`, bareChat.url), chatTotal],
    [`r${c.name}`, (i) => c.tap('relay', `r${c.name}${i}`, r.url), chatTotal],
  );
}
const profile = await startPhaseProfile(args.profile, 'tap');
const tapStart = performance.now();
for (let i = 0; i < total; i++) {
  // Rotate the order so neither side always runs first after an idle moment.
  for (let k = 0; k < runs.length; k++) {
    const [kind, run, count] = runs[(i + k) % runs.length]!;
    if (i >= count) continue;
    const s = await run(i).catch((err: Error) => {
      // Why the relay did not submit or edit is in its warnings.
      console.error(
        `tap ${kind}${i}: ${err.message}\nrelay warnings (last 5):\n${r.warnings.slice(-5).join('')}`,
      );
      throw err;
    });
    if (i >= warmup) samples[kind]!.push(s);
  }
}
const tapSeconds = (performance.now() - tapStart) / 1000;
const phase = await profile.stop();

const figures: Figure[] = [];
const rows: Array<[string, string, string]> = [];
if (webOn) rows.push(['web', 'rw', 'bw']);
if (telegramOn) rows.push(['telegram webhook', 'rt', 'bt']);
for (const c of chats) rows.push([c.name, `r${c.name}`, `b${c.name}`]);
for (const [platform, rk, bk] of rows) {
  const rel = samples[rk]!;
  const bas = samples[bk]!;
  for (const leg of ['submit', 'edit'] as const) {
    const a = summary(rel.map((s) => s[leg]));
    const b = summary(bas.map((s) => s[leg]));
    const what = leg === 'submit' ? 'tap -> submit' : 'tap -> edit';
    figures.push(
      {
        bench: 'tap',
        figure: `${platform}: ${what} p50`,
        value: a.p50,
        unit: 'ms',
        baseline: b.p50,
        goal: '',
        met: null,
      },
      {
        bench: 'tap',
        figure: `${platform}: ${what} p99`,
        value: a.p99,
        unit: 'ms',
        baseline: b.p99,
        // Issue 22: the submit leaves within 3x the bare relay's p99 (the edit has no ratio goal).
        goal: leg === 'submit' ? 'ratio <= 3' : '',
        met: leg === 'submit' ? a.p99 / b.p99 <= 3 : null,
      },
    );
    figures.push({
      bench: 'tap',
      figure: `${platform}: p99 added by hitl-relay (${what})`,
      value: a.p99 - b.p99,
      unit: 'ms',
      baseline: null,
      goal: '< 2 ms',
      met: a.p99 - b.p99 < 2,
    });
  }
  const reply = summary(rel.map((s) => s.reply));
  const breply = summary(bas.map((s) => s.reply));
  figures.push({
    bench: 'tap',
    figure: `${platform}: tap -> answer p99`,
    value: reply.p99,
    unit: 'ms',
    baseline: breply.p99,
    goal: '',
    met: null,
  });
}
console.log(
  `\ntap to submit: ${taps} taps per side for web and Telegram, ${chatTaps} for ${chats.map((c) => c.name).join(', ') || 'no other platform'} (+${warmup} warm-up), one at a time, ${fmt(tapSeconds)} s; ${machine()}`,
);
console.log(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
console.log(
  `GC over the tap phase (whole process): ${phase.gcCount} pauses, ${fmt(phase.gcMs)} ms, longest ${fmt(phase.gcMaxMs)} ms${phase.file ? `; profile ${phase.file}` : ''}`,
);
report(figures);
if (r.warnings.length) console.log(`relay warnings (first 3):\n${r.warnings.slice(0, 3).join('')}`);

await r.stop();
await bare.stop();
await bareChat.stop();
for (const c of chats) await c.close();
await fake.close();
await service.stop();
await http.close();
