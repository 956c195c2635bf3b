/**
 * The ten kinds in the web chat in a real browser (Debian's Chromium via playwright-core): the
 * native controls of every kind, a refused answer shown beside the controls, typing that survives
 * the page's redraws, an irreversible pick behind a confirm dialog, a ranking by the arrows. The
 * screenshots in docs/asks/ are drawn by `npm run screenshots` (card-screenshots.test.ts).
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALL_KINDS } from '../../src/asks/content.ts';
import { KINDS } from '../asks/fixtures.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
let browser: Browser;

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await relay?.stop();
});

async function ask(room: string, content: unknown): Promise<string> {
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `web:${room}`, content }),
  });
  const body = (await res.body.json()) as any;
  expect(res.statusCode, JSON.stringify(body)).toBe(202);
  return body.relay.id;
}

async function answerOf(id: string): Promise<any> {
  const res = await request(`${relay.url}/v1/asks/${id}/wait?timeout=10`);
  return res.body.json();
}

async function open(room: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
  await page.goto(`${relay.url}/chat?room=${room}`);
  await page.locator('.msg form.ask').waitFor();
  return page;
}

it('draws native controls for every kind', { timeout: 60_000 }, async () => {
  for (const kind of ALL_KINDS) {
    const room = `shot-${kind.replace(/[^a-z]/g, '-')}`;
    await ask(room, KINDS[kind].content);
    const page = await open(room);
    const form = page.locator('.msg form.ask');
    expect(await form.getAttribute('data-kind')).toBe(kind);
    expect(await form.locator('button').count(), kind).toBeGreaterThan(0);
    await page.close();
  }
});

it('shows a refused answer beside the controls, keeps typing across redraws, then submits', async () => {
  const id = await ask('b-freetext', KINDS['context.freetext'].content);
  const page = await open('b-freetext');
  await page.locator('form.ask button', { hasText: 'Submit' }).click();
  await page.locator('form.ask .errors', { hasText: 'data.value' }).waitFor();
  const now = await request(`${relay.url}/v1/asks/${id}`);
  expect(((await now.body.json()) as any).status).toBe('pending');
  await page.locator('form.ask textarea').fill('A full refund, please.');
  // Two more redraws of the room (two new cards arrive through its waiting request), and the text
  // is still there.
  for (let i = 0; i < 2; i++) {
    const redrawn = page.waitForResponse(
      (r) => r.url().includes('/messages') && r.status() === 200,
    );
    await ask('b-freetext', KINDS['decision.single'].content);
    await redrawn;
  }
  const card = page.locator('.msg').first();
  expect(await card.locator('form.ask textarea').inputValue()).toBe('A full refund, please.');
  await card.locator('form.ask button', { hasText: 'Submit' }).click();
  await card.locator('.status', { hasText: /by Web user/ }).waitFor({ timeout: 10_000 });
  expect((await answerOf(id)).answer).toEqual({ value: 'A full refund, please.' });
  await page.close();
});

it('confirms an irreversible option in a dialog, and ranks with the arrows', async () => {
  const single = await ask('b-single', KINDS['decision.single'].content);
  const page = await open('b-single');
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.accept();
  });
  await page.locator('form.ask input[value="prod"]').check();
  await page.locator('form.ask button', { hasText: 'Submit' }).click();
  expect((await answerOf(single)).answer).toEqual({ selected: 'prod' });
  expect(dialogs[0]).toContain('Affects live users');
  await page.close();

  const rank = await ask('b-rank', KINDS['decision.rank'].content);
  const p2 = await open('b-rank');
  await p2
    .locator('form.ask li[data-key="push"] button[aria-label^="Move Push Notification up"]')
    .click();
  await p2.locator('form.ask li[data-key="push"]').first().waitFor();
  await p2
    .locator('form.ask li[data-key="push"] button[aria-label^="Move Push Notification up"]')
    .click();
  await p2.locator('form.ask button', { hasText: 'Submit ranking' }).click();
  expect((await answerOf(rank)).answer).toEqual({ ranking: ['push', 'email', 'sms'] });
  await p2.close();
});

it('asks before posting an irreversible pick on the review page, and posts it once confirmed', async () => {
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: 'web:b-review', content: KINDS['decision.single'].content }),
  });
  const created = (await res.body.json()) as any;
  const page = await browser.newPage();
  await page.goto(created.hitl.review_url);
  let accept = false;
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void (accept ? d.accept() : d.dismiss());
  });
  await page.locator('input[value="prod"]').check();
  await page.locator('button[name="action"]').click();
  expect(dialogs).toHaveLength(1);
  expect(dialogs[0]).toContain('Affects live users');
  // Nothing was posted: the service still has no answer (opening the page made it opened / in progress).
  const polled = await request(created.hitl.poll_url, {
    headers: { authorization: `Bearer ${created.hitl.submit_token}` },
  });
  expect(((await polled.body.json()) as any).status).not.toBe('completed');

  accept = true;
  await Promise.all([page.waitForNavigation(), page.locator('button[name="action"]').click()]);
  expect(await page.locator('h1').textContent()).toContain('recorded');
  expect((await answerOf(created.relay.id)).answer).toEqual({ selected: 'prod' });
  await page.close();
});
