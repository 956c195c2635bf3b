/** The adapter kit: the tap window, de-duplication, truncation, and the LOCALE reaching a toast. */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import type { User } from 'grammy/types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DiscordApi, type DiscordInteractionResponse } from '../../platforms/discord/api.ts';
import { rankStep } from '../../platforms/discord/ask-modal.ts';
import { InteractionFlow } from '../../platforms/discord/interactions.ts';
import type { RawInteraction } from '../../platforms/discord/parse.ts';
import { renderMessage as renderDiscordMessage } from '../../platforms/discord/render.ts';
import { renderCard as renderGoogleChatCard } from '../../platforms/googlechat/render.ts';
import { modalView } from '../../platforms/slack/ask-modal.ts';
import { renderCard as renderSlackCard } from '../../platforms/slack/render.ts';
import { renderTeamsCard } from '../../platforms/teams/render.ts';
import { readReply, stepRows } from '../../platforms/telegram/ask-steps.ts';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { renderCard as renderTelegramCard } from '../../platforms/telegram/render.ts';
import { askWordsScript } from '../../platforms/web/ask-controls.ts';
import { chatPage } from '../../platforms/web/page.ts';
import type { AdapterContext, Tap, TapReply } from '../../src/adapter.ts';
import {
  adapterStrings,
  firstDelivery,
  stringsOf,
  tapWithin,
  truncateCodePoints,
  truncateUtf16,
} from '../../src/adapter-kit.ts';
import { kindOf, parseAskContent } from '../../src/asks/content.ts';
import { loadStrings } from '../../src/render/templates.ts';
import { MemoryKeyValue } from '../../src/store/memory-kv.ts';
import { KINDS } from '../asks/fixtures.ts';
import { startFakeDiscord } from '../fakes/discord-api.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { startRelay } from '../helpers/relay-env.ts';
import { hitlIdCommand } from './discord/gateway-harness.ts';
import {
  componentInteraction,
  TEST_DISCORD_APPLICATION_ID,
  TEST_DISCORD_CHANNEL_ID,
  TEST_DISCORD_TOKEN,
} from './discord/harness.ts';
import { makeContext as makeDiscordContext } from './discord/helpers.ts';
import { startRig as startTeamsRig } from './teams/helpers.ts';
import {
  makeCard as makeTelegramCard,
  memoryLogger,
  setup as setupTelegram,
  type Setup as TelegramSetup,
  until as untilTelegram,
} from './telegram/helpers.ts';

const tap: Tap = {
  platform: 'telegram',
  key: 'k1',
  action: 'approve',
  user: { id: '1' },
  ref: null,
};
const submitted: TapReply = { outcome: 'submitted', text: 'Approved.', card: null };

function context(onTap: AdapterContext['onTap']) {
  const { log, lines } = memoryLogger();
  return { ctx: { kv: new MemoryKeyValue(), log, onTap } satisfies AdapterContext, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('tapWithin', () => {
  it('returns the reply that came within the window', async () => {
    const { ctx } = context(async () => submitted);
    expect(await tapWithin(ctx, tap, 1000)).toEqual({ reply: submitted });
  });

  it('returns the pending reply when the engine is slower than the window', async () => {
    vi.useFakeTimers();
    let release: (r: TapReply) => void = () => {};
    const { ctx, lines } = context(() => new Promise((resolve) => (release = resolve)));
    const within = tapWithin(ctx, tap, 2000);
    await vi.advanceTimersByTimeAsync(2000);
    const result = await within;
    expect(result.late).toBeInstanceOf(Promise);
    release(submitted);
    expect(await result.late).toBe(submitted);
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.some((l) => l.includes('telegram tap settled late'))).toBe(true);
  });

  it('turns an engine failure into a failed reply in the context words, logged', async () => {
    const strings = { ...adapterStrings(), tapFailed: 'Kaputt.' };
    const { ctx, lines } = context(async () => {
      throw new Error('boom');
    });
    const result = await tapWithin({ ...ctx, strings }, tap, 1000);
    expect(result).toEqual({ reply: { outcome: 'failed', text: 'Kaputt.', card: null } });
    expect(lines.some((l) => l.includes('"err":"boom"'))).toBe(true);
  });
});

describe('firstDelivery', () => {
  it('is true once per event id and again after the mark expired', async () => {
    const kv = new MemoryKeyValue();
    expect(await firstDelivery(kv, 'x:1', 50)).toBe(true);
    expect(await firstDelivery(kv, 'x:1', 50)).toBe(false);
    expect(await firstDelivery(kv, 'x:2', 50)).toBe(true);
  });
});

describe('truncation', () => {
  it('cuts UTF-16 text between graphemes and code-point text by code points', () => {
    expect(truncateUtf16('abcdef', 6)).toBe('abcdef');
    expect(truncateUtf16('abcdef', 4)).toBe('abc…');
    // A family emoji is 11 code units: never cut inside it.
    expect(truncateUtf16(`ab👨‍👩‍👧x`, 8)).toBe('ab…');
    expect(truncateCodePoints('😀😀😀😀', 3)).toBe('😀😀…');
    expect(truncateCodePoints('abc', 3)).toBe('abc');
  });
});

describe('adapter strings', () => {
  it('come from templates/ "adapter", English by default', () => {
    const en = stringsOf(undefined);
    expect(en.submitting).toBe('Submitting…');
    expect(en.refusal('Refused.', [{ path: 'name', message: 'is required' }])).toBe(
      'Refused.\n• name: is required',
    );
    // Each problem once: the one the text already states is not listed again.
    const issues = [
      { path: 'data.values.a', label: 'Amount', message: 'must be a number' },
      { path: 'data.values.d', label: 'Due', message: 'must be a date' },
    ];
    expect(en.refusal('That answer is not valid: Amount: must be a number', issues)).toBe(
      'That answer is not valid: Amount: must be a number\n• Due: must be a date',
    );
    expect(en.refusal('That answer is not valid: Amount: must be a number', [issues[0]!])).toBe(
      'That answer is not valid: Amount: must be a number',
    );
  });
});

describe('a LOCALE template change reaches a platform toast', () => {
  const locale = `zz${randomBytes(4).toString('hex').replace(/\d/g, 'q')}`;
  const file = fileURLToPath(new URL(`../../templates/${locale}.json`, import.meta.url));

  it('answers a foreign Telegram button in the relay locale', async () => {
    writeFileSync(
      file,
      JSON.stringify({ adapter: { unknown_button: 'Dieser Knopf gilt nicht mehr.' } }),
    );
    const fake = await FakeTelegramApi.start();
    const adapter = createTelegramAdapter({
      botToken: fake.token,
      apiRoot: fake.apiRoot,
      botInfo: fake.botInfo,
      pollingTimeoutSeconds: 1,
    });
    const relay = await startRelay({ adapters: [adapter], env: { LOCALE: locale } });
    try {
      expect(loadStrings(locale)).toMatchObject({ adapter: { submitting: 'Submitting…' } });
      const update = fake.callbackQuery({
        chatId: -1001234567890,
        messageId: 1,
        data: 'vote:42',
        from: FakeTelegramApi.user(111222333, 'Ann'),
      });
      fake.queueUpdate(update);
      const answer = await fake.waitForAnswer(update.callback_query?.id as string);
      expect(answer.text).toBe('Dieser Knopf gilt nicht mehr.');
    } finally {
      rmSync(file, { force: true });
      await relay.stop();
      await fake.close();
    }
  });
});

describe('a LOCALE template change reaches welcome and ask-flow texts on each platform', () => {
  const locale = `zz${randomBytes(4).toString('hex').replace(/\d/g, 'q')}`;
  const file = fileURLToPath(new URL(`../../templates/${locale}.json`, import.meta.url));
  /** The changed templates, loaded the way the relay loads its LOCALE. */
  const localized = () => {
    writeFileSync(
      file,
      JSON.stringify({
        adapter: {
          not_answerable: 'Hier nicht mehr zu beantworten.',
          target: 'Ziel dieses Chats: {{target}}',
          welcome: 'Willkommen! Ziel: {{target}} (frag mich {{command}}).',
          unknown_command: 'Unbekannt; versuche {{command}}.',
          asks: {
            answer_below: 'Antworte unten.',
            already_placed: 'Schon gesetzt.',
            choose_one: 'Wähle eins',
            choose_range: 'Wähle {{min}} bis {{max}}',
            your_choice: 'Gewählt ({{count}}): {{picks}}',
            buttons: { answer: 'Antworten…', fill_in: 'Ausfüllen…', edit_draft: 'Entwurf ändern…' },
            steps: {
              yes: 'Ja',
              no: 'Nein',
              submit: 'Senden',
              form_title: 'Antwort',
              not_a_number: 'keine Zahl',
              field_required: '{{label}} fehlt',
              place: '{{n}}. Platz',
              choose_place: 'Wähle Platz {{n}}.',
              select_range: 'Mindestens {{min}}{{#max}}, höchstens {{max}}{{/max}}.',
              tool: 'Werkzeug: {{name}}',
            },
          },
        },
      }),
    );
    try {
      return adapterStrings(loadStrings(locale));
    } finally {
      rmSync(file, { force: true });
    }
  };

  it('Telegram: the /hitl_id reply and the ask flow toasts', async () => {
    const s = await setupTelegram({ tapAnswerWaitMs: 5_000 });
    s.ctx.strings = localized();
    await s.adapter.start(s.ctx);
    try {
      const ann = FakeTelegramApi.user(111, 'Ann');
      s.fake.queueUpdate(s.fake.textMessage({ chatId: GROUP, from: ann, text: '/hitl_id' }));
      await untilTelegram(() => s.fake.messages(GROUP).length === 1, 'the target reply');
      expect(s.fake.messages(GROUP)[0]?.message.text).toBe(`Ziel dieses Chats: telegram:${GROUP}`);
      const freetext = await postAsk(s, 'context.freetext', 'frt1');
      expect((await tapAsk(s, freetext, 'frt1:f', ann)).text).toBe('Antworte unten.');
      const rank = await postAsk(s, 'decision.rank', 'rnk1');
      await tapAsk(s, rank, 'rnk1:r:0', ann);
      expect((await tapAsk(s, rank, 'rnk1:x', ann)).text).toBe('Schon gesetzt.');
      // A group pick's toast (each person's own picks).
      const multi = await postAsk(s, 'decision.multi', 'mul1');
      expect((await tapAsk(s, multi, 'mul1:t:0', ann)).text).toBe('Gewählt (1): Infrastructure');
    } finally {
      await s.close();
    }
  });

  it('Discord: the /hitl id reply, an unknown command and an ask button whose ask is gone', async () => {
    const fake = await startFakeDiscord({
      token: TEST_DISCORD_TOKEN,
      applicationId: TEST_DISCORD_APPLICATION_ID,
    });
    try {
      const api = new DiscordApi({ token: TEST_DISCORD_TOKEN, apiUrl: fake.apiUrl });
      const flow = new InteractionFlow({ api, applicationId: TEST_DISCORD_APPLICATION_ID });
      const ctx = makeDiscordContext(async () => submitted);
      ctx.strings = localized();
      const answers = async (raw: unknown) => {
        const out: DiscordInteractionResponse[] = [];
        await flow.handle(raw as RawInteraction, async (r) => void out.push(r), ctx);
        return out.map((r) => (r.data as { content?: string } | undefined)?.content);
      };
      const ann = { id: '2100000000000000001', name: 'Ann' };
      const command = hitlIdCommand(TEST_DISCORD_CHANNEL_ID, ann);
      expect(await answers(command)).toEqual([
        `Ziel dieses Chats: \`discord:${TEST_DISCORD_CHANNEL_ID}\``,
      ]);
      const other = { ...command, data: { ...(command.data as object), options: [] } };
      expect(await answers(other)).toEqual(['Unbekannt; versuche `/hitl id`.']);
      const created = await api.createMessage(TEST_DISCORD_CHANNEL_ID, {
        content: 'card',
        components: [],
        allowed_mentions: { parse: [] },
      });
      const message = fake.message(TEST_DISCORD_CHANNEL_ID, created.id)!;
      const press = componentInteraction({ message, customId: 'hitl-ask:gone1:open', user: ann });
      expect(await answers(press)).toEqual(['Hier nicht mehr zu beantworten.']);
    } finally {
      await fake.close();
    }
  });
  it('Teams: the welcome when the bot is added, in the relay locale', async () => {
    const rig = await startTeamsRig({ strings: localized() });
    try {
      const { conversationId, key } = await rig.install();
      expect(rig.fake.conversation(conversationId)[0]?.versions[0]?.text).toBe(
        `Willkommen! Ziel: teams:${key} (frag mich "hitl id").`,
      );
    } finally {
      await rig.close();
    }
  });
  it('the choice placeholders of Discord, Slack and Teams ask menus', () => {
    const strings = localized();
    const card = (kind: keyof typeof KINDS) => {
      const parsed = parseAskContent(KINDS[kind].content);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      return makeTelegramCard({
        key: 'menu1',
        actions: [],
        ask: { kind: kindOf(parsed.content), content: parsed.content },
      });
    };
    const single = card('decision.single');
    const multi = card('decision.multi');
    const json = (x: unknown) => JSON.stringify(x);
    expect(json(renderDiscordMessage(single, strings))).toContain('"placeholder":"Wähle eins"');
    expect(json(renderDiscordMessage(multi, strings))).toContain('"placeholder":"Wähle 1 bis 2"');
    expect(json(renderSlackCard(single, strings))).toContain('"text":"Wähle eins"');
    expect(json(renderTeamsCard(multi, { strings }))).toContain('"label":"Wähle 1 bis 2"');
    // Without the context's strings: English.
    expect(json(renderDiscordMessage(single))).toContain('"placeholder":"Choose one"');
  });
  it("the buttons that open an ask's form on Telegram, Slack, Discord and Google Chat", () => {
    const strings = localized();
    const card = (kind: keyof typeof KINDS) => {
      const parsed = parseAskContent(KINDS[kind].content);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      return makeTelegramCard({
        key: 'open1',
        actions: [],
        ask: { kind: kindOf(parsed.content), content: parsed.content },
      });
    };
    const text = card('context.freetext');
    const json = (x: unknown) => JSON.stringify(x);
    const telegram = (c: ReturnType<typeof card>) =>
      json(renderTelegramCard(c, { words: strings.asks }).reply_markup);
    expect(telegram(text)).toContain('✍️ Antworten…');
    expect(telegram(card('context.form'))).toContain('📝 Ausfüllen…');
    expect(telegram(card('edit.content'))).toContain('✏️ Entwurf ändern…');
    expect(json(renderSlackCard(text, strings))).toContain('"text":"Antworten…"');
    expect(json(renderDiscordMessage(text, strings))).toContain('"label":"Antworten…"');
    expect(json(renderGoogleChatCard(text, strings))).toContain('"text":"Antworten…"');
    // A key the locale leaves out stays English; without the context's strings all are English.
    expect(telegram(card('edit.content'))).toContain('Send the draft as it is');
    expect(json(renderSlackCard(text))).toContain('"text":"Answer…"');
  });
  it('the step flows, modals and forms of Telegram, Slack, Discord and Teams', () => {
    const strings = localized();
    const steps = strings.asks.steps;
    const content = (kind: keyof typeof KINDS) => {
      const parsed = parseAskContent(KINDS[kind].content);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      return parsed.content;
    };
    const json = (x: unknown) => JSON.stringify(x);
    // Telegram: a BOOLEAN step's buttons and a typed reply that is no number.
    const flag = { key: 'f', label: 'Flag', type: 'BOOLEAN' as const, required: true };
    expect(json(stepRows('st1', flag, steps))).toContain('"text":"Ja"');
    const count = { key: 'n', label: 'Count', type: 'NUMBER' as const, required: true };
    expect(readReply(count, 'many', steps)).toEqual({ problem: 'keine Zahl' });
    expect(readReply(count, 'many')).toEqual({ problem: 'must be a number' });
    // Slack: the form modal's title and submit button.
    const form = content('context.form');
    const slack = json(
      modalView({ key: 'st2', ask: { kind: kindOf(form), content: form } }, (s) => s, '', steps),
    );
    expect(slack).toContain('"text":"Antwort"');
    expect(slack).toContain('"text":"Senden"');
    // Discord: the next ranking place, the locale's own ordinal.
    const rank = content('decision.rank');
    expect(json(rankStep('st3', rank, [], steps))).toContain('"placeholder":"1. Platz"');
    expect(json(rankStep('st3', rank, [], steps))).toContain('Wähle Platz 1.');
    expect(json(rankStep('st3', rank, []))).toContain('"placeholder":"1st place"');
    // Teams: a required input's refusal and the Submit button of a form card.
    const teams = json(
      renderTeamsCard(
        makeTelegramCard({ key: 'st4', actions: [], ask: { kind: kindOf(form), content: form } }),
        { strings },
      ),
    );
    expect(teams).toMatch(/"errorMessage":"[^"]+ fehlt"/);
    expect(teams).toContain('"title":"Senden"');
  });
  it("the web chat page's ask controls, filled in by its own script", () => {
    const strings = localized();
    const page = chatPage({ words: strings.asks });
    expect(page).toContain(askWordsScript(strings.asks));
    const run = (words: typeof strings.asks, expression: string) =>
      runInNewContext(`${askWordsScript(words)}; ${expression}`) as string;
    expect(run(strings.asks, 'W.submit')).toBe('Senden');
    expect(run(strings.asks, 'fill(W.selectRange, { min: 1, max: 2 })')).toBe(
      'Mindestens 1, höchstens 2.',
    );
    expect(run(strings.asks, 'fill(W.selectAtLeast, { min: 1 })')).toBe('Mindestens 1.');
    expect(run(strings.asks, 'fill(W.tool, { name: "{name} <b>" })')).toBe('Werkzeug: {name} <b>');
    // A template that would end the script element stays inside it.
    const sneaky = { ...strings.asks, steps: { ...strings.asks.steps, submit: '</script><b>' } };
    expect(askWordsScript(sneaky)).not.toContain('</script>');
    expect(run(sneaky, 'W.submit')).toBe('</script><b>');
    // Without the relay's words: English.
    expect(runInNewContext(`${askWordsScript(stringsOf(null).asks)}; W.submitRanking`)).toBe(
      'Submit ranking',
    );
  });
});

const GROUP = -1001234567890;

async function postAsk(s: TelegramSetup, kind: keyof typeof KINDS, key: string): Promise<number> {
  const parsed = parseAskContent(KINDS[kind].content);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const card = makeTelegramCard({
    key,
    actions: [],
    ask: { kind: kindOf(parsed.content), content: parsed.content },
  });
  const ref = await s.adapter.post(String(GROUP), card);
  return Number(ref.id.split(':').at(-1));
}

async function tapAsk(s: TelegramSetup, message: number, data: string, from: User) {
  const u = s.fake.queueUpdate(
    s.fake.callbackQuery({ chatId: GROUP, messageId: message, data: `ha:${data}`, from }),
  );
  return s.fake.waitForAnswer(u.callback_query!.id);
}
