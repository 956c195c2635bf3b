/**
 * The web pages' inline scripts are valid JavaScript: one stray quote in a template literal breaks
 * a whole page in the browser (nothing renders, no error reaches the server), and the browser tests
 * would only time out. Parsing them here names the page at once.
 */
import { expect, it } from 'vitest';
import { inboxPage } from '../../platforms/web/inbox-page.ts';
import { chatPage } from '../../platforms/web/page.ts';
import { SERVICE_WORKER } from '../../platforms/web/pwa.ts';
import { signInPage } from '../../platforms/web/signin.ts';

const scripts = (html: string): string[] =>
  [...html.matchAll(/<script(?:\s[^>]*)?>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');

it.each([
  ['chat', chatPage()],
  ['chat (demo)', chatPage({ demo: true })],
  ['inbox', inboxPage()],
  ['sign-in', signInPage('ops', 'wrong code', '/inbox')],
])('WEB-SCRIPT-1 the %s page: every inline script parses', (_name, html) => {
  const found = scripts(html).filter((s) => s.trim());
  for (const script of found) expect(() => new Function(script)).not.toThrow();
  if (_name !== 'sign-in') expect(found.length).toBeGreaterThan(0);
});

it('WEB-SCRIPT-1 the service worker parses, and both pages link the manifest and register it', () => {
  expect(() => new Function(SERVICE_WORKER)).not.toThrow();
  for (const html of [chatPage(), inboxPage()]) {
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest">');
    expect(html).toContain("navigator.serviceWorker.register('/sw.js')");
  }
});
