/** The web chat page in a real browser (Debian's Chromium via playwright-core): create, tap, confirm, final. */
import { mkdirSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { mountDemo } from '../../src/demo/mount.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
let browser: Browser;
/** Screenshots are kept here (gitignored) as the test's artefacts. */
const ARTEFACTS = 'test-results/chat';

beforeAll(async () => {
  // The relay mounts the demo service at /demo, as `npm start` does.
  relay = await startRelay({
    adapters: [createWebAdapter()],
    // In the room "clicks" only "nobody" may decide: every tap is answered and the card stays open.
    allow: { 'web:clicks': ['nobody'] },
    mount: (app, log, dataDir) => mountDemo(app, { dataDir, log }),
  });
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

it('creates a demo case, asks to confirm an irreversible action, and shows the final card', async () => {
  const page = await browser.newPage();
  await page.goto(`${relay.url}/chat?room=browser`);
  await page.click('button[data-type="confirmation"][data-inline="1"]');
  const card = page.locator('.msg').first();
  await card.locator('button[data-action="confirm"]').waitFor();
  expect(await card.locator('.title').textContent()).toBe('Confirmation needed');
  expect(await card.locator('a.link').getAttribute('href')).toMatch(/\/r\//);

  const badge = card.locator('.badge');
  expect(await badge.textContent()).toBe('Open');
  const openColour = await badge.evaluate((e) => getComputedStyle(e).backgroundColor);

  await card.locator('button[data-action="confirm"]').click();
  await page.locator('#toast', { hasText: 'again to confirm' }).waitFor();
  // The card itself shows that a second tap is awaited.
  await card
    .locator('button.confirming[data-action="confirm"]', { hasText: 'Tap again' })
    .waitFor();
  expect(await card.locator('.confirm-note').textContent()).toMatch(/cannot be undone/);
  mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTEFACTS}/confirm-asked.png` });
  await card.locator('button[data-action="confirm"]').click();
  await card.locator('.status', { hasText: /Confirmed by Web user/ }).waitFor({ timeout: 10_000 });
  expect(await card.locator('button[data-action]').count()).toBe(0);
  expect(await card.locator('.confirm-note').count()).toBe(0);
  // Final is visible at a glance: its own badge (how it ended: a confirmation is approved), colour
  // and card style.
  expect(await badge.textContent()).toBe('Approved');
  expect(await card.getAttribute('class')).toContain('outcome-approved');
  expect(await badge.evaluate((e) => getComputedStyle(e).backgroundColor)).not.toBe(openColour);
  expect(await card.getAttribute('class')).toContain('final');
  await page.screenshot({ path: `${ARTEFACTS}/final.png` });

  // The person is the same after a reload; the page has an icon.
  const id = await page.locator('#uid').inputValue();
  await page.reload();
  expect(await page.locator('#uid').inputValue()).toBe(id);
  const icon = await fetch(`${relay.url}/favicon.ico`);
  expect(icon.status).toBe(200);
  expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  await page.close();
});

it('counts every one of 50 rapid clicks while the page keeps refreshing', async () => {
  const page = await browser.newPage();
  const body = await (
    await fetch(`${relay.url}/demo/api/reviews?type=approval&inline=1`, { method: 'POST' })
  ).json();
  await relay.send('web:clicks', body);
  await page.goto(`${relay.url}/chat?room=clicks`);
  const button = page.locator('.msg button[data-action="approve"]').first();
  await button.waitFor();
  let taps = 0;
  page.on('response', (r) => {
    if (
      r.request().method() === 'POST' &&
      r.url().includes('/actions/approve') &&
      r.status() === 200
    )
      taps++;
  });
  const box = (await button.boundingBox())!;
  // Real mouse clicks at the button's place (not re-targeted by locator), as a person taps:
  // a click is lost when the button under the pointer is replaced between press and release.
  for (let i = 0; i < 50; i++)
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2, { delay: 15 });
  await expect.poll(() => taps, { timeout: 15_000 }).toBe(50);
  await page.locator('#toast', { hasText: 'not allowed' }).waitFor();
  await page.close();
});

it('brings a new card into view', async () => {
  const page = await browser.newPage({ viewport: { width: 800, height: 500 } });
  for (let i = 0; i < 6; i++)
    await relay.send(
      'web:scroll',
      await (
        await fetch(`${relay.url}/demo/api/reviews?type=confirmation&inline=1`, { method: 'POST' })
      ).json(),
    );
  await page.goto(`${relay.url}/chat?room=scroll`);
  await expect.poll(() => page.locator('.msg').count(), { timeout: 10_000 }).toBe(6);
  await page.evaluate(() => window.scrollTo(0, 0));
  // A person is reading the first card: its prompt is selected, and the element is marked.
  await page.evaluate(() => {
    const prompt = document.querySelector('.msg .prompt')!;
    (prompt.closest('.msg') as HTMLElement & { mark?: number }).mark = 1;
    const range = document.createRange();
    range.selectNodeContents(prompt);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  });
  const selected = await page.evaluate(() => String(getSelection()));
  expect(selected.length).toBeGreaterThan(10);
  const sent = await relay.send(
    'web:scroll',
    await (
      await fetch(`${relay.url}/demo/api/reviews?type=escalation&inline=1`, { method: 'POST' })
    ).json(),
  );
  const card = page.locator(`.msg[data-case="${sent.body.id}"]`);
  await card.waitFor({ timeout: 10_000 });
  const inView = () =>
    card.evaluate((e) => {
      const r = e.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
  await expect.poll(inView, { timeout: 10_000 }).toBe(true);
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
  // The room changed and was drawn again, but the unchanged card is the same element, and the
  // selection in it survived.
  expect(
    await page.evaluate(
      () => (document.querySelector('.msg') as HTMLElement & { mark?: number }).mark,
    ),
  ).toBe(1);
  expect(await page.evaluate(() => String(getSelection()))).toBe(selected);
  await page.close();
});

it('shows service text as text, never as markup', async () => {
  const page = await browser.newPage();
  const res = await fetch(`${relay.url}/demo/api/reviews?type=approval&inline=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: '<img src=x onerror="window.pwned=1"><b>bold</b>' }),
  });
  await relay.send('web:xss', await res.json());
  await page.goto(`${relay.url}/chat?room=xss`);
  const prompt = page.locator('.msg .prompt').first();
  await prompt.waitFor();
  expect(await prompt.textContent()).toBe('<img src=x onerror="window.pwned=1"><b>bold</b>');
  expect(
    await page.evaluate(() => (window as unknown as { pwned?: number }).pwned),
  ).toBeUndefined();
  await page.close();
});

it('waits for its room by event and asks again after its waiting request was dropped', async () => {
  const page = await browser.newPage();
  const waits: string[] = [];
  let dropped = 0;
  // The first two waiting requests are cut (a proxy restart, a network blip); later ones go through.
  await page.route(/\/web\/api\/rooms\/drops\/messages\?wait=/, async (route) => {
    waits.push(route.request().url());
    if (dropped < 2) {
      dropped++;
      await route.abort('connectionreset');
    } else await route.continue();
  });
  await page.goto(`${relay.url}/chat?room=drops`);
  await expect.poll(() => waits.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  expect(waits.every((u) => u.endsWith('?wait=25'))).toBe(true);
  const sent = await relay.send(
    'web:drops',
    await (
      await fetch(`${relay.url}/demo/api/reviews?type=approval&inline=1`, { method: 'POST' })
    ).json(),
  );
  // The card arrives through the waiting request (the page does not poll on a timer).
  await page.locator(`.msg[data-case="${sent.body.id}"]`).waitFor({ timeout: 10_000 });
  expect(dropped).toBe(2);
  await page.close();
});
