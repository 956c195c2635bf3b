/** The bookkeeping of the replicas scenario: one case's run, its card at the fake, and measurements. */
import pg from 'pg';
import type { FakeTelegramApi } from '../fakes/telegram-api.ts';

/** One case as the test follows it. */
export interface CaseRun {
  n: number;
  /** The Telegram chat its card goes to. */
  chat: number;
  /** The demo service's case_id. */
  caseId: string;
  /** The relay's id. */
  relayId: string;
  /** The 202 body the demo service answered. */
  response: Record<string, any>;
  messageId: number;
  /** The short key of its button payloads. */
  key: string;
  /** Taps made on it (people tap again when nothing happens). */
  taps: number;
  lastTapAt: number;
}

/** A case's card as the fake Bot API holds it. */
export interface SeenCard {
  /** How many messages in the chat show this case (1 unless it was posted twice). */
  count: number;
  messageId: number;
  key: string;
  text: string;
  /** callback_data of the buttons it shows now. */
  buttons: string[];
  /** The URL of its Details button. */
  link: string | undefined;
}

/** Finds the case's card by its prompt ("Release #<n>:"), which no other case shares. */
export function cardOf(telegram: FakeTelegramApi, c: Pick<CaseRun, 'n' | 'chat'>): SeenCard {
  const marker = `Release #${c.n}:`;
  const found = telegram.messages(c.chat).filter((m) => m.message.text.includes(marker));
  const first = found[0];
  if (!first) throw new Error(`no card for case ${c.n} in chat ${c.chat}`);
  const keyboard = (first.message.reply_markup?.inline_keyboard ?? []).flat();
  const buttons = keyboard.flatMap((b) => ('callback_data' in b ? [b.callback_data] : []));
  const link = keyboard.flatMap((b) => ('url' in b ? [b.url] : []))[0];
  const key = /^hitl:([^:]+):/.exec(first.everCallbackData[0] ?? '')?.[1] ?? '';
  return {
    count: found.length,
    messageId: first.message.message_id,
    key,
    text: first.message.text,
    buttons,
    link,
  };
}

/** A card is final when its buttons are gone (the Details link may stay). */
export function isFinalCard(card: SeenCard): boolean {
  return card.buttons.length === 0;
}

/** A shuffled copy. */
export function shuffle<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** What a killed process left behind in the database: live watch leases and tap claims (a measurement). */
export async function deadHands(
  databaseUrl: string,
  pid: number,
): Promise<{ leases: number; claims: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const owner = `${pid}-%`;
    const r = await client.query<{ leases: number; claims: number }>(
      `SELECT count(*) FILTER (WHERE lease_owner LIKE $1 AND lease_until > $2)::int AS leases,
              count(*) FILTER (WHERE claim_holder LIKE $1)::int AS claims FROM cases`,
      [owner, Date.now()],
    );
    return r.rows[0] ?? { leases: 0, claims: 0 };
  } finally {
    await client.end();
  }
}
