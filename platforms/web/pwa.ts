/**
 * The web chat as an installable web app: its manifest (start at /inbox, standalone) and its
 * service worker, which shows the relay's Web Push notifications and opens a notification's card
 * (the link in its data, a same-origin path) when it is tapped.
 */
import type { HttpRoute } from '../../src/adapter.ts';

/** The manifest at /manifest.webmanifest. */
export const MANIFEST = {
  name: 'hitl-relay',
  short_name: 'hitl-relay',
  description: 'Decisions your AI agents are waiting for',
  start_url: '/inbox',
  scope: '/',
  display: 'standalone',
  background_color: '#f4f5f7',
  theme_color: '#1f2937',
  icons: [{ src: '/favicon.ico', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
};

/** The `<link>`s every page of the web chat carries: the manifest and the theme colour. */
export const PWA_HEAD = `<link rel="manifest" href="/manifest.webmanifest"><meta name="theme-color" content="#1f2937">`;

/** The page script that registers the service worker (where the browser has them). */
export const REGISTER_SCRIPT = `
;if('serviceWorker' in navigator)navigator.serviceWorker.register('/sw.js').catch(function(){});`;

/**
 * The inbox's "Notify me" button: asks for permission, subscribes with the relay's VAPID key and
 * registers the subscription for the person in the id field (every room). Hidden where the browser
 * has no Push API (or the page is not a secure context).
 */
export const PUSH_BUTTON = `<button id="push" type="button" hidden>Notify me</button>`;
export const PUSH_BUTTON_SCRIPT = `
;(function(){var b=document.getElementById('push');if(!b||!('serviceWorker' in navigator)||!('PushManager' in window))return;b.hidden=false;
b.onclick=function(){var u=document.getElementById('uid');var user=u&&u.value;if(!user){b.textContent='Enter your id first';return;}
Notification.requestPermission().then(function(p){if(p!=='granted')throw new Error('not allowed');return fetch('/web/api/push/key');})
.then(function(r){return r.json();}).then(function(k){return navigator.serviceWorker.ready.then(function(reg){return reg.pushManager.subscribe({userVisibleOnly:true,applicationServerKey:k.publicKey});});})
.then(function(sub){return fetch('/web/api/push/subscriptions',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({user:user,subscription:sub.toJSON()})});})
.then(function(r){b.textContent=r.ok?'Notifications on':'Notifications failed';}).catch(function(){b.textContent='Notifications not available';});};})();`;

/**
 * The service worker at /sw.js. A push's data is JSON `{title, body, url, tag}`; only a same-origin
 * path is opened, so a push can never send the person somewhere else.
 */
export const SERVICE_WORKER = `'use strict';
self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (e) { e.waitUntil(self.clients.claim()); });
function safePath(u) { return typeof u === 'string' && /^\\/(chat|inbox)([?][^\\s\\\\#]*)?$/.test(u) ? u : '/inbox'; }
self.addEventListener('push', function (e) {
  var d = {};
  try { d = e.data ? e.data.json() : {}; } catch (err) { d = { body: e.data ? e.data.text() : '' }; }
  var title = typeof d.title === 'string' ? d.title : 'hitl-relay';
  var opts = { body: typeof d.body === 'string' ? d.body : '', tag: typeof d.tag === 'string' ? d.tag : undefined,
    icon: '/favicon.ico', data: { url: safePath(d.url) } };
  e.waitUntil(self.registration.showNotification(title, opts));
});
self.addEventListener('notificationclick', function (e) {
  e.notification.close();
  var url = safePath(e.notification.data && e.notification.data.url);
  e.waitUntil(self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(function (list) {
    for (var i = 0; i < list.length; i++) if ('navigate' in list[i]) return list[i].navigate(url).then(function (c) { return c && c.focus(); });
    return self.clients.openWindow(url);
  }));
});
`;

/** The manifest's and the service worker's routes (no session needed: a browser fetches them bare). */
export function pwaRoutes(): HttpRoute[] {
  return [
    {
      method: 'GET',
      path: '/manifest.webmanifest',
      handle: async () => ({
        status: 200,
        headers: { 'content-type': 'application/manifest+json', 'cache-control': 'no-cache' },
        body: JSON.stringify(MANIFEST),
      }),
    },
    {
      method: 'GET',
      path: '/sw.js',
      handle: async () => ({
        status: 200,
        headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' },
        body: SERVICE_WORKER,
      }),
    },
  ];
}
