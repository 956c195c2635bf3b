/**
 * A decision receipt is issued after the case's card edit (src/receipts/background.ts), so its
 * signing and store calls do not hold the edit back; an edit that never finishes delays it by at
 * most RECEIPT_AFTER_EDIT_MS. A real relay, the Telegram adapter against the fake Bot API (which
 * can hold editMessageText unanswered), the relay's own asks service; the receipt is read from
 * the relay's database, not through GET /receipt (which would issue one on demand).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { InlineKeyboardButton, User } from 'grammy/types';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { RECEIPT_AFTER_EDIT_MS } from '../../src/receipts/background.ts';
import type { Receipt, ReceiptBody } from '../../src/receipts/receipt.ts';
import { KINDS } from '../asks/fixtures.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { FAST } from '../platforms/telegram/helpers.ts';

const CHAT = -1001234567001;
const ANN: User = { id: 111222444, is_bot: false, first_name: 'Ann' };

let fake: FakeTelegramApi;
let relay: RelayHandle;
const releases: Array<() => void> = [];

beforeAll(async () => {
  fake = await FakeTelegramApi.start();
  const adapter = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    ...FAST,
  });
  relay = await startRelay({
    adapters: [adapter],
    allow: { [`telegram:${CHAT}`]: [String(ANN.id)] },
  });
});
afterAll(async () => {
  for (const release of releases) release();
  await relay?.stop();
  await fake?.close();
});

/** The receipt the relay stored for case `id`, if any. */
function storedReceipt(id: string): ReceiptBody | undefined {
  const db = new Database(join(relay.dataDir, 'hitl-relay.sqlite'), { readonly: true });
  try {
    const row = db
      .prepare<[string], { v: string }>('SELECT v FROM kv WHERE k = ?')
      .get(`receipt:${id}`);
    if (!row) return undefined;
    return (JSON.parse(row.v) as Receipt).receipt;
  } finally {
    db.close();
  }
}

/** Posts an approval ask, waits for its card, holds the card's edits, taps "Send it". */
async function approvedWithEditHeld(): Promise<{ id: string; release: () => void }> {
  const before = fake.messages(CHAT).length;
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `telegram:${CHAT}`, content: KINDS['approval.binary'].content }),
  });
  expect(res.statusCode).toBe(202);
  const id = ((await res.body.json()) as any).relay.id as string;
  await eventually(async () => fake.messages(CHAT).length > before, 10_000, 'the card');
  const card = fake.messages(CHAT).at(-1)!.message;
  const release = fake.hold('editMessageText');
  releases.push(release);
  const edits = fake.calls('editMessageText').length;
  const data = (
    card.reply_markup!.inline_keyboard.flat() as InlineKeyboardButton.CallbackButton[]
  ).find((b) => b.text === 'Send it')!.callback_data;
  const u = fake.queueUpdate(
    fake.callbackQuery({ chatId: CHAT, messageId: card.message_id, data, from: ANN }),
  );
  await fake.waitForAnswer(u.callback_query!.id);
  await relay.until(id, (c) => c.status === 'completed', 10_000);
  // The final card's edit has reached the Bot API, which does not answer it yet.
  await eventually(async () => fake.calls('editMessageText').length > edits, 10_000, 'the edit');
  return { id, release };
}

it('the receipt is issued once the card edit is done, not before', async () => {
  const { id, release } = await approvedWithEditHeld();
  const released = Date.now();
  release();
  await eventually(async () => storedReceipt(id) !== undefined, 10_000, 'the receipt');
  expect(Date.parse(storedReceipt(id)!.issued_at)).toBeGreaterThanOrEqual(released - 1);
});

it(`an edit that does not finish delays the receipt by at most ${RECEIPT_AFTER_EDIT_MS} ms`, async () => {
  const { id } = await approvedWithEditHeld();
  // The edit is still unanswered when the receipt is stored.
  await eventually(
    async () => storedReceipt(id) !== undefined,
    RECEIPT_AFTER_EDIT_MS + 10_000,
    'the receipt',
  );
  const r = storedReceipt(id)!;
  const final = r.history.entries.find((e) => e.kind === 'status' && e.detail.to === 'completed');
  expect(final).toBeDefined();
  // It waited for the edit, up to the bound (timers never fire early).
  expect(Date.parse(r.issued_at) - Date.parse(final!.at)).toBeGreaterThanOrEqual(
    RECEIPT_AFTER_EDIT_MS - 50,
  );
}, 30_000);
