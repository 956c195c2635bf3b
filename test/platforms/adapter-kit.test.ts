/** The adapter kit: the tap window, de-duplication, truncation, and the LOCALE reaching a toast. */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import type { AdapterContext, Tap, TapReply } from '../../src/adapter.ts';
import {
  adapterStrings,
  firstDelivery,
  stringsOf,
  tapWithin,
  truncateCodePoints,
  truncateUtf16,
} from '../../src/adapter-kit.ts';
import { MemoryKeyValue } from '../../src/cases/memory-kv.ts';
import { loadStrings } from '../../src/render/templates.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { startRelay } from '../helpers/relay-env.ts';
import { memoryLogger } from './telegram/helpers.ts';

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
