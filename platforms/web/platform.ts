/** The web chat as the registry sees it (src/adapter-definition.ts). */
import type { PlatformDefinition } from '../../src/adapter-definition.ts';
import { readWebConfig, WEB_ENV_VARS, type WebConfig } from './config.ts';

const notSignedIn = { error: 'No web chat session (WEB_CHAT_TOKEN is set).' };

export const platform: PlatformDefinition<WebConfig> = {
  envVars: WEB_ENV_VARS,
  readConfig: (_env, config) => readWebConfig(config),
  create: async (config) => (await import('./index.ts')).createWebAdapter(config),
  exampleEnv: {},
  routes: {
    'GET /chat': {
      summary: 'The web chat page (?room=NAME)',
      responses: {
        '200': { text: 'HTML.', type: 'text/html' },
        '401': {
          text: 'The sign-in form (WEB_CHAT_TOKEN is set and there is no session).',
          type: 'text/html',
        },
      },
    },
    'POST /chat/signin': {
      summary: 'Sign in to the web chat with WEB_CHAT_TOKEN (form field `token`)',
      description:
        'Form fields: `token`, `room`, and `next` (where to go on to: `/chat` or `/inbox` with a query, a relative path; anything else, such as an absolute URL or `//host`, is ignored).',
      responses: {
        '303': {
          description: 'Signed in: a session cookie, and on to `next` or else /chat?room=ROOM.',
        },
        '401': { text: 'The sign-in form again: the token is not right.', type: 'text/html' },
      },
    },
    'GET /favicon.ico': {
      summary: "The web chat's icon (SVG)",
      responses: { '200': { text: 'SVG.', type: 'image/svg+xml' } },
    },
    'GET /manifest.webmanifest': {
      summary: 'The web app manifest (install the web chat; it starts at /inbox)',
      responses: { '200': { text: 'The manifest (JSON).', type: 'application/manifest+json' } },
    },
    'GET /sw.js': {
      summary: "The web chat's service worker (shows Web Push notifications, opens their card)",
      responses: { '200': { text: 'JavaScript.', type: 'text/javascript' } },
    },
    'GET /web/api/rooms/:room/messages': {
      summary: 'The messages of a web chat room, oldest first',
      description:
        'With `?wait=N` (0-30 seconds) and a matching If-None-Match, the answer waits until the room changes (on any replica), or is a 304 after N seconds.',
      responses: {
        '304': { description: "Not modified: If-None-Match is the room's current ETag." },
        '429': {
          error: 'Too many waiting requests from this client; try again after Retry-After.',
        },
        '200': { jsonArrayOf: 'WebMessage', description: 'The messages.' },
        '400': { error: 'Invalid room name or wait.' },
        '401': notSignedIn,
      },
    },
    'GET /web/api/push/key': {
      summary: 'The VAPID public key a page subscribes to Web Push with',
      responses: {
        '200': {
          description: '`publicKey`: the P-256 public key, base64url (applicationServerKey).',
        },
        '401': notSignedIn,
        '404': { error: 'Web Push is not enabled on this relay.' },
      },
    },
    'GET /web/api/push/subscriptions': {
      summary: "A person's Web Push subscriptions (?user=ID)",
      responses: {
        '200': {
          description:
            '`items`: id, service (the push service origin), rooms, created. Never keys.',
        },
        '400': { error: 'Missing or invalid user.' },
        '401': notSignedIn,
        '404': { error: 'Web Push is not enabled on this relay.' },
      },
    },
    'POST /web/api/push/subscriptions': {
      summary: 'Subscribe a browser to Web Push for a person',
      description:
        'JSON (at most 4 KiB): `user` (1-128 characters), `subscription` (PushSubscription.toJSON(): an https `endpoint`, `keys.p256dh` 65 bytes and `keys.auth` 16 bytes, base64url), `rooms` (at most 50 room names; empty or absent: every room). The same endpoint again replaces its subscription; at most 10 per person.',
      responses: {
        '201': { description: 'Subscribed: id, service, rooms, created.' },
        '400': { error: 'Invalid JSON, user, endpoint, keys or rooms (the error names which).' },
        '401': notSignedIn,
        '404': { error: 'Web Push is not enabled on this relay.' },
        '409': { error: 'This person has 10 subscriptions already.' },
        '413': { error: 'The body is over 4 KiB.' },
        '415': { error: 'Not application/json.' },
      },
    },
    'POST /web/api/push/subscriptions/:id/remove': {
      summary: "Remove one of a person's Web Push subscriptions (?user=ID)",
      responses: {
        '204': { description: 'Removed.' },
        '400': { error: 'Missing or invalid user.' },
        '401': notSignedIn,
        '404': { error: 'No such subscription of this person, or Web Push is off.' },
      },
    },
    'GET /web/api/rooms/:room/pending': {
      summary: "/pending: the room's open cases this person may decide, newest first",
      description:
        'Query: `user` (who asks, as for taps), `mine=1` (only cases whose policy names them), `cursor` (the `next` of the page before). Five per page; cases the person may not decide are left out.',
      responses: {
        '200': {
          description:
            'A page: `items` (key, prompt, from, age, expires_in, expires_at, tally, link, message: the card in this room) and `next` (null on the last page).',
        },
        '400': { error: 'Invalid room, user or cursor.' },
        '401': notSignedIn,
        '503': { error: 'The web chat is not started (the relay is stopping).' },
      },
    },
    'POST /web/api/rooms/:room/pending/:key/repost': {
      summary: "/pending's Re-post: the case's card posted again at the bottom of the room",
      description:
        'Body `{"user":{"id":"..."}}` (who presses, as for taps; checked again: allowlist, policy). The case must be open; once per case in 30 s. The old card is edited to say it moved; the new one takes every later edit.',
      responses: {
        '201': {
          description: '`outcome: reposted`, `text`, `message`: the new card in this room.',
        },
        '400': { error: 'Invalid room, key, body or user.' },
        '401': notSignedIn,
        '403': { error: '`forbidden`: this person may not decide the case; nothing posted.' },
        '404': { error: '`unknown_case`: no such case in this room.' },
        '409': { error: '`closed` (decided, expired) or `busy`: nothing posted.' },
        '429': { error: '`rate_limited`: re-posted less than 30 s ago.' },
        '502': { error: '`failed`: the post failed; the old card still works.' },
        '503': { error: 'The web chat is not started (the relay is stopping).' },
      },
    },
    'GET /inbox': {
      summary: "The web inbox page: this person's open cases across every room",
      responses: {
        '200': { text: 'HTML.', type: 'text/html' },
        '401': {
          text: 'The sign-in form (WEB_CHAT_TOKEN is set and there is no session).',
          type: 'text/html',
        },
      },
    },
    'GET /web/api/inbox': {
      summary: "The inbox: this person's open cases across every room, newest first",
      description:
        "Query: `user` (who asks), `room`, `service`, `type`, `policy` (filters; `policy` is an approval policy's name, or `none` for cases without one), `cursor` (the `next` of the page before), `wait=N` (0-30 seconds: with a matching If-None-Match the answer waits until any room changes, or is a 304 after N seconds).",
      responses: {
        '200': {
          description:
            "A page: `items` (key, prompt, from, service, type, policy, room, rooms, message, actions: the card's live buttons) and `next` (null on the last page).",
        },
        '304': { description: "Not modified: If-None-Match is the inbox's current ETag." },
        '400': { error: 'Invalid user, room, cursor, filter or wait.' },
        '401': notSignedIn,
        '429': {
          error: 'Too many waiting requests from this client; try again after Retry-After.',
        },
        '503': { error: 'The web chat is not started (the relay is stopping).' },
      },
    },
    'POST /web/api/inbox/bulk': {
      summary: 'A bulk decision from the inbox: preview, then confirm',
      description:
        'Preview: `{"user":{"id":...},"action":"approve","keys":[...]}` (at most 50 case keys) answers `items` (exactly the cases that would get the action: key, prompt, room, message, label), `skipped` (key, prompt, reason: four-eyes, needs typed input, cannot be undone, not yours, decided), `count`, `text` and `confirm` (a single-use token for this person, valid five minutes; null when nothing may be decided). Nothing is sent. Confirm: `{"user":{"id":...},"confirm":TOKEN}` submits each case through its card\'s tap route, one after another, and answers `results` (each: key, room, message, result confirmed/refused/unconfirmed, outcome, text).',
      body: { json: 'InboxBulkRequest', description: 'The preview or its confirmation.' },
      responses: {
        '200': { description: "The preview, or each case's outcome." },
        '400': { error: 'Invalid JSON, user, action, keys or confirm token.' },
        '401': notSignedIn,
        '409': { error: "The confirm token is used, expired or not this person's: preview again." },
        '413': { error: 'More than 50 cases in one bulk decision.' },
        '415': { error: 'A body that is not application/json.' },
        '503': { error: 'The web chat is not started (the relay is stopping).' },
      },
    },
    'POST /web/api/rooms/:room/messages/:id/actions/:action': {
      summary: 'Tap a button of a web chat message',
      body: { json: 'TapRequest', description: 'Who taps.' },
      responses: {
        '200': { json: 'TapReply', description: 'What became of the tap.' },
        '400': { error: 'Invalid room, action, JSON or user.' },
        '422': {
          json: 'TapReply',
          description: 'An ask answer that does not fit (outcome invalid_answer, issues).',
        },
        '401': notSignedIn,
        '404': { error: 'No such message in this room.' },
        '415': { error: 'A body that is not application/json.' },
        '503': { error: 'The web chat is not started (the relay is stopping).' },
      },
    },
  },
};
