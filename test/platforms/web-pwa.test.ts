/** The web chat as an installable app: the manifest and the service worker are served as such. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
beforeAll(async () => {
  relay = await startRelay({
    adapters: [createWebAdapter({ token: 'web-chat-token-0123456789' })],
  });
});
afterAll(async () => {
  await relay?.stop();
});

it('PWA-1 serves the manifest (start /inbox, standalone, an icon) without a session', async () => {
  const res = await fetch(`${relay.url}/manifest.webmanifest`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/manifest+json');
  const m = await res.json();
  expect(m).toMatchObject({ start_url: '/inbox', display: 'standalone', name: 'hitl-relay' });
  const icon = await fetch(new URL(m.icons[0].src, relay.url));
  expect(icon.headers.get('content-type')).toBe(m.icons[0].type);
});

it('PWA-1 serves the service worker as JavaScript at the root (its scope is the whole app)', async () => {
  const res = await fetch(`${relay.url}/sw.js`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
  const text = await res.text();
  expect(text).toContain("addEventListener('push'");
  expect(text).toContain("addEventListener('notificationclick'");
});
