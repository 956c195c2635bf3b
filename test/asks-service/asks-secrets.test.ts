/**
 * Ask answers are secrets of the ask (issue 32 item 5). A form ask with a `sensitive` password
 * field, answered in the web chat, on a relay with RELAY_SECRET_KEY: its poll URL and event stream
 * answer only the owner's credential (the submit token of its own 202, or the relay's), the review
 * page behind the card's Details link never shows the password back, the asks service's database
 * holds it sealed, and the receipt carries a digest of the answer, not the answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { sha256Of } from '../../src/receipts/receipt.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { startReceiver } from '../notify/receiver.ts';

let relay: RelayHandle;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const NOTIFY_SECRET = 'notify-secret-for-tests-0123456789';
const PASSWORD = 'hunter2-Plaintext-5ecret';
const TICKET = 'TKT-8081-visible';

beforeAll(async () => {
  // Down for good: the notify deliveries of the answered asks stay pending in the outbox.
  receiver = await startReceiver({ secret: NOTIFY_SECRET, failFirst: Number.MAX_SAFE_INTEGER });
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: {
      RELAY_SECRET_KEY: 'a-test-secret-key-of-enough-length',
      RELAY_NOTIFY_SECRET: NOTIFY_SECRET,
      NOTIFY_RETRY_MIN_SECONDS: '0.1',
      NOTIFY_RETRY_MAX_SECONDS: '0.5',
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await receiver?.close();
});

const content = {
  type: 'context',
  sub_type: 'form',
  prompt: 'Log in to the staging box for me?',
  fields: [
    { key: 'ticket', label: 'Ticket', type: 'STRING', required: true },
    { key: 'password', label: 'Password', type: 'STRING', required: true, sensitive: true },
  ],
};
const values = { ticket: TICKET, password: PASSWORD };

async function askAndAnswer(room: string, extra: Record<string, unknown> = {}) {
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `web:${room}`, content, expires_in: 600, ...extra }),
  });
  const created = (await res.body.json()) as any;
  expect(res.statusCode, JSON.stringify(created)).toBe(202);
  const id = created.relay.id as string;
  const card = await eventually(async () => {
    const r = await request(`${relay.url}/web/api/rooms/${room}/messages`);
    return ((await r.body.json()) as any[]).find((m) => m.case === id);
  });
  const tap = await request(
    `${relay.url}/web/api/rooms/${room}/messages/${card.id}/actions/submit`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' }, data: { values } }),
    },
  );
  expect(((await tap.body.json()) as any).outcome).toBe('submitted');
  const done = await request(`${relay.url}/v1/asks/${id}/wait?timeout=10`);
  expect(((await done.body.json()) as any).answer).toEqual({ values });
  return { id, hitl: created.hitl, card };
}

async function text(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

describe('the answers of an ask', () => {
  it('ASK-SECRET-1: poll and event stream need the owner credential', async () => {
    const { hitl } = await askAndAnswer('secret-reads');
    for (const url of [hitl.poll_url, hitl.events_url]) {
      const bare = await text(url);
      expect(bare.status, url).toBe(401);
      expect(bare.text).not.toContain(PASSWORD);
      expect(JSON.parse(bare.text)).toMatchObject({ error: 'invalid_token' });
      const wrong = await text(url, { authorization: 'Bearer not-the-token' });
      expect(wrong.status).toBe(401);
      // The review token (in the Details link) is a person's, not the agent's: it reads no poll.
      const review = new URL(hitl.review_url).searchParams.get('token')!;
      expect((await text(url, { authorization: `Bearer ${review}` })).status).toBe(401);
    }
    const owner = { authorization: `Bearer ${hitl.submit_token}` };
    const poll = await text(hitl.poll_url, owner);
    expect(poll.status).toBe(200);
    expect(JSON.parse(poll.text)).toMatchObject({
      status: 'completed',
      result: { data: { values } },
    });
    const events = await text(hitl.events_url, { ...owner, accept: 'text/event-stream' });
    expect(events.status).toBe(200);
    expect(events.text).toContain('review.completed');
  });

  it('ASK-SECRET-2: the Details link shows the answer without its sensitive values', async () => {
    const { card } = await askAndAnswer('secret-details');
    const details = await request(card.link.url);
    await details.body.text();
    expect(details.statusCode).toBe(303);
    const page = await text(String(details.headers.location));
    expect(page.status).toBe(200);
    expect(page.text).toContain(TICKET);
    expect(page.text).not.toContain(PASSWORD);
    expect(page.text).toContain('••••••');
  });

  it("ASK-SECRET-3: the asks service's database holds no answer in plain text", async () => {
    await askAndAnswer('secret-rest');
    // The file with its WAL, as a copy of the data directory would have them: the case, its
    // events and the respond requests that carried the answer.
    const files = readdirSync(relay.dataDir).filter((f) => /^asks\.sqlite(-wal|-shm)?$/.test(f));
    expect(files).toContain('asks.sqlite');
    for (const f of files) {
      const bytes = readFileSync(join(relay.dataDir, f));
      expect(bytes.includes(PASSWORD), f).toBe(false);
      expect(bytes.includes(TICKET), f).toBe(false);
    }
  });

  it("ASK-SECRET-6: the relay's own database holds no answer in plain text", async () => {
    const { id, card } = await askAndAnswer('secret-relay-rest', {
      notify_url: receiver.url,
      notify_on: 'all',
    });
    // The completed delivery was attempted (and refused): its row is pending with the case view.
    await eventually(async () =>
      receiver.got.some((r) => r.event === 'completed' && r.body.id === id) ? true : undefined,
    );
    const delivered = receiver.got.find((r) => r.event === 'completed' && r.body.id === id)!;
    // The final card shows the ticket and hides the password: a chat keeps what it was shown.
    const final = await eventually(async () => {
      const r = await request(`${relay.url}/web/api/rooms/secret-relay-rest/messages`);
      const m = ((await r.body.json()) as any[]).find((x) => x.id === card.id);
      return m?.text.includes('Submitted') ? m.text : undefined;
    });
    expect(final).toContain(TICKET);
    expect(final).toContain('Password: ••••••');
    expect(final).not.toContain(PASSWORD);
    // The receiver (the agent) gets the answer: sealing is at rest only.
    expect(JSON.stringify(delivered.body)).toContain(TICKET);
    // The relay's own file with its WAL, as a copy of the data directory would have them: the
    // sensitive answer is in no row at all (cases, history, notify deliveries, key-values).
    const files = readdirSync(relay.dataDir).filter((f) =>
      /^hitl-relay\.sqlite(-wal|-shm)?$/.test(f),
    );
    expect(files).toContain('hitl-relay.sqlite');
    for (const f of files)
      expect(readFileSync(join(relay.dataDir, f)).includes(PASSWORD), f).toBe(false);
    // Nor any other value, in any row but the web chat's room: a chat keeps the final card as
    // people saw it (the ticket shown, the password hidden), as Telegram or Slack do theirs.
    const db = new Database(join(relay.dataDir, 'hitl-relay.sqlite'), { readonly: true });
    try {
      const tables = db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(['cases', 'notify_outbox', 'history', 'kv']));
      for (const table of tables) {
        const rows = db.prepare<[], Record<string, unknown>>(`SELECT * FROM "${table}"`).all();
        const kept = table === 'kv' ? rows.filter((r) => !String(r.k).startsWith('web:')) : rows;
        expect(JSON.stringify(rows).includes(PASSWORD), table).toBe(false);
        expect(JSON.stringify(kept).includes(TICKET), table).toBe(false);
      }
    } finally {
      db.close();
    }
    // And what the relay tells stays whole: the case view and /wait still carry the answer.
    const view = (await (await request(`${relay.url}/v1/cases/${id}`)).body.json()) as any;
    expect(JSON.stringify(view)).toContain(TICKET);
  });

  it('ASK-SECRET-4: the receipt carries a digest of the answer and says a sensitive one was given', async () => {
    const { id } = await askAndAnswer('secret-receipt');
    const receipt = await eventually(async () => {
      const r = await request(`${relay.url}/v1/cases/${id}/receipt`);
      const body = (await r.body.json()) as any;
      return r.statusCode === 200 ? body : undefined;
    });
    const raw = JSON.stringify(receipt);
    expect(raw).not.toContain(PASSWORD);
    expect(raw).not.toContain(TICKET);
    expect(receipt.receipt.decision.result).toEqual({
      action: 'submit',
      data_sha256: sha256Of({ values }),
      sensitive: ['values.password'],
    });
  });
});
