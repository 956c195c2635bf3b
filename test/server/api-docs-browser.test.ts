/**
 * /docs in a real browser (Debian's Chromium via playwright-core): Swagger UI draws the running
 * relay's own /openapi.json, every request the page makes stays on the relay, and the page's CSP
 * is not violated.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
let browser: Browser;

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
  await relay?.stop();
});

it('draws the live /openapi.json at /docs, loading nothing from outside the relay', async () => {
  const page = await browser.newPage();
  const requested: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  const res = await page.goto(`${relay.url}/docs`);
  expect(res?.status()).toBe(200);

  // Operations from the document: a case route and an ask route.
  const live = (await (await fetch(`${relay.url}/openapi.json`)).json()) as {
    paths: object;
    webhooks: object;
  };
  expect(Object.keys(live.paths)).toContain('/v1/asks/{id}/wait');
  const op = (path: string) => page.locator(`.opblock-summary-path[data-path="${path}"]`).first();
  await op('/v1/cases/{id}/wait').waitFor();
  await op('/v1/asks/{id}/wait').waitFor();
  expect(await page.locator('.info .title').first().textContent()).toContain('hitl-relay');
  const drawn = await page
    .locator('.opblock-summary-path')
    .evaluateAll((spans) => spans.map((e) => e.getAttribute('data-path')));
  // Every path and every webhook of the document, and nothing else.
  expect(new Set(drawn)).toEqual(
    new Set([...Object.keys(live.paths), ...Object.keys(live.webhooks)]),
  );

  // Open one operation: its parameters are drawn from the document too.
  await op('/v1/cases/{id}/wait').click();
  await page.locator('.parameters-container', { hasText: 'timeout' }).first().waitFor();

  const origin = new URL(relay.url).origin;
  expect(requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual(
    [],
  );
  expect(requested).toContain(`${origin}/openapi.json`);
  expect(problems).toEqual([]);
  await page.close();
});

it('answers 404 for a file that is not one of its assets', async () => {
  for (const name of ['package.json', 'constructor', 'index.html']) {
    const res = await fetch(`${relay.url}/docs/assets/${name}`);
    expect(res.status, name).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('not_found');
  }
});
