/**
 * Issue 35, Web Push in a real browser (Debian's Chromium via playwright-core): the inbox page
 * installs /sw.js, a new case makes the relay send a push that the fake push service on loopback
 * verifies and decrypts, and that very payload is delivered into the service worker over CDP
 * (`ServiceWorker.deliverPushMessage`: Chromium's own push service cannot be reached from here).
 * The worker's push handler shows the notification with the card's link.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type FakePushService, startFakePushService } from '../fakes/push-service.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let service: Awaited<ReturnType<typeof startFastService>>;
let relay: RelayHandle;
let browser: Browser;
let push: FakePushService;

beforeAll(async () => {
  push = await startFakePushService();
  service = await startFastService();
  relay = await startRelay({
    adapters: [createWebAdapter({ push: { policy: { allowHttpLoopback: true, allowHosts: [] } } })],
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await service?.stop();
  await push?.stop();
});

it("PUSH-BROWSER-1 the relay's push, delivered into the installed service worker, shows its notification", async () => {
  const context = await browser.newContext({ permissions: ['notifications'] });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const registrations: Array<{ registrationId: string; scopeURL: string }> = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
  await page.goto(`${relay.url}/inbox`);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  const reg = await eventually(
    async () => registrations.find((r) => r.scopeURL.startsWith(relay.url)),
    30_000,
    'the service worker registration',
  );

  const sub = push.subscribe();
  const made = await fetch(`${relay.url}/web/api/push/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'ann', subscription: sub, rooms: ['pw-ops'] }),
  });
  expect(made.status).toBe(201);
  expect((await relay.send('web:pw-ops', service.create('pw-case'))).status).toBe(201);
  const received = await eventually(async () => push.received[0], 15_000, 'the push');

  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: new URL(relay.url).origin,
    registrationId: reg.registrationId,
    data: received.plaintext,
  });
  const shown = await eventually(
    async () => {
      const list = await page.evaluate(async () => {
        const r = await navigator.serviceWorker.ready;
        return (await r.getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          data: n.data,
        }));
      });
      return list[0];
    },
    30_000,
    'the notification',
  );
  expect(shown.body).toContain('pw-case');
  expect(shown.data).toEqual({ url: '/chat?room=pw-ops' });
  await context.close();
});
