/** The web chat page in a real browser (Debian's Chromium via playwright-core): create, tap, confirm, final. */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { CONFIRM_MIN_MS } from '../../src/cases/tap.ts';
import { mountDemo } from '../../src/demo/mount.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
let browser: Browser;

beforeAll(async () => {
  // The relay mounts the demo service at /demo, as `npm start` does.
  relay = await startRelay({
    adapters: [createWebAdapter()],
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

  await card.locator('button[data-action="confirm"]').click();
  await page.locator('#toast', { hasText: 'again to confirm' }).waitFor();
  // A confirming click counts once the warning has been up for CONFIRM_MIN_MS (finding 4).
  await page.waitForTimeout(CONFIRM_MIN_MS);
  await card.locator('button[data-action="confirm"]').click();
  await card.locator('.status', { hasText: /Confirmed by Web user/ }).waitFor({ timeout: 10_000 });
  expect(await card.locator('button[data-action]').count()).toBe(0);
  await page.screenshot({ path: `${relay.dataDir}/chat.png` });
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
