/** Building blocks of the OpenAPI document, and the platforms' inbound routes. */
import { z } from 'zod';
import type { HttpRoute, PlatformAdapter } from '../adapter.ts';
import { EXAMPLES } from './openapi-examples.ts';

/** One operation object. */
export type Operation = Record<string, unknown>;
/** One path item. */
export type PathItem = Record<string, Operation>;

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses it) of a zod schema: the documentation of a body
 * comes from the schema that validates it. Refinements cannot be expressed and are left out.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

/** What every route behind RELAY_API_KEY says about it. */
export const AUTH_NOTE =
  ' Needs `Authorization: Bearer <RELAY_API_KEY>` when the relay has an API key.';
/** The security requirement of a route behind RELAY_API_KEY. */
export const secured = [{ apiKey: [] }];
/** The relay case id as a path parameter. */
export const caseIdParam = () => pathParam('id', 'The relay case id (hc_...).');

/** A reference to a component schema. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A JSON body of a component schema, with its example when there is one. */
export const json = (schema: string, description: string) => ({
  description,
  content: {
    'application/json': {
      schema: ref(schema),
      ...(schema in EXAMPLES
        ? { examples: { example: { value: EXAMPLES[schema as keyof typeof EXAMPLES] } } }
        : {}),
    },
  },
});
/** An error answer. */
export const error = (description: string) => json('Error', description);
/** A path parameter. */
export const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description,
});
/** A text answer. */
export const text = (description: string, type = 'text/plain') => ({
  description,
  content: { [type]: { schema: { type: 'string' } } },
});
/**
 * What each platform's inbound routes are, keyed by "METHOD path" ("*" for a configurable path).
 * An adapter route missing here is left undocumented, and the OpenAPI test fails on it.
 */
const PLATFORM_OPERATIONS: Record<string, Record<string, Operation>> = {
  web: {
    'GET /chat': {
      summary: 'The web chat page (?room=NAME)',
      responses: {
        '200': text('HTML.', 'text/html'),
        '401': text(
          'The sign-in form (WEB_CHAT_TOKEN is set and there is no session).',
          'text/html',
        ),
      },
    },
    'POST /chat/signin': {
      summary: 'Sign in to the web chat with WEB_CHAT_TOKEN (form field `token`)',
      responses: {
        '303': { description: 'Signed in: a session cookie, and on to /chat.' },
        '401': text('The sign-in form again: the token is not right.', 'text/html'),
      },
    },
    'GET /favicon.ico': {
      summary: "The web chat's icon (SVG)",
      responses: { '200': text('SVG.', 'image/svg+xml') },
    },
    'GET /web/api/rooms/:room/messages': {
      summary: 'The messages of a web chat room, oldest first',
      description:
        'With `?wait=N` (0-30 seconds) and a matching If-None-Match, the answer waits until the room changes (on any replica), or is a 304 after N seconds.',
      responses: {
        '304': { description: "Not modified: If-None-Match is the room's current ETag." },
        '429': error('Too many waiting requests from this client; try again after Retry-After.'),
        '200': {
          description: 'The messages.',
          content: { 'application/json': { schema: { type: 'array', items: ref('WebMessage') } } },
        },
        '400': error('Invalid room name or wait.'),
        '401': error('No web chat session (WEB_CHAT_TOKEN is set).'),
      },
    },
    'POST /web/api/rooms/:room/messages/:id/actions/:action': {
      summary: 'Tap a button of a web chat message',
      requestBody: { required: true, ...json('TapRequest', 'Who taps.') },
      responses: {
        '200': json('TapReply', 'What became of the tap.'),
        '400': error('Invalid room, action, JSON or user.'),
        '422': json(
          'TapReply',
          'An ask answer that does not fit (outcome invalid_answer, issues).',
        ),
        '401': error('No web chat session (WEB_CHAT_TOKEN is set).'),
        '404': error('No such message in this room.'),
        '415': error('A body that is not application/json.'),
        '503': error('The web chat is not started (the relay is stopping).'),
      },
    },
  },
  telegram: {
    'POST *': {
      summary: 'Telegram Bot API webhook (X-Telegram-Bot-Api-Secret-Token)',
      responses: webhookResponses('Wrong or missing secret token.'),
    },
  },
  slack: {
    'POST /slack/events': {
      summary: 'Slack events and interactions (signed, X-Slack-Signature)',
      responses: webhookResponses('Missing or bad signature.'),
    },
  },
  discord: {
    'POST /discord/interactions': {
      summary: 'Discord HTTP interactions (Ed25519 signed)',
      responses: webhookResponses('Missing or bad signature.'),
    },
  },
  teams: {
    'POST /api/messages': {
      summary: 'Microsoft Teams Bot Framework activities (JWT)',
      responses: webhookResponses('Missing or invalid Bot Framework token.'),
    },
  },
};

/** What a platform's webhook answers besides 200 (each a JSON error). */
function webhookResponses(unauthorized: string): Record<string, unknown> {
  return {
    '200': { description: 'Handled.' },
    '400': error('Not a valid event of this platform.'),
    '401': error(unauthorized),
    '503': error('The platform adapter is not running yet (starting or stopping).'),
  };
}

/** Every inbound POST: the body limit and the body type rule of the relay's server. */
const POST_LIMITS = {
  '413': error('Body over 1 MB.'),
  '415': error('Not application/json (or a form, where the platform sends one).'),
};

/** Hono's `:name` path segments as OpenAPI's `{name}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The documented inbound routes of the enabled adapters. */
export function platformPaths(adapters: PlatformAdapter[]): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  for (const a of adapters)
    for (const r of a.routes as HttpRoute[]) {
      const table = PLATFORM_OPERATIONS[a.platform] ?? {};
      const op = table[`${r.method} ${r.path}`] ?? table[`${r.method} *`];
      if (!op) continue;
      const params = [...r.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => pathParam(m[1]!, ''));
      const path = toOpenApiPath(r.path);
      out[path] ??= {};
      const responses = (op.responses as Record<string, unknown>) ?? {
        '200': { description: 'Handled.' },
      };
      out[path][r.method.toLowerCase()] = {
        tags: [`platform: ${a.platform}`],
        ...(params.length ? { parameters: params } : {}),
        ...op,
        responses: r.method === 'POST' ? { ...responses, ...POST_LIMITS } : responses,
      };
    }
  return out;
}
