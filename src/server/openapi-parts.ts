/** Building blocks of the OpenAPI document, and the platforms' inbound routes. */
import type { HttpRoute, PlatformAdapter } from '../adapter.ts';
import { EXAMPLES } from './openapi-examples.ts';

/** One operation object. */
export type Operation = Record<string, unknown>;
/** One path item. */
export type PathItem = Record<string, Operation>;

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
      responses: { '200': text('HTML.', 'text/html') },
    },
    'GET /web/api/rooms/:room/messages': {
      summary: 'The messages of a web chat room, oldest first',
      responses: {
        '200': {
          description: 'The messages.',
          content: { 'application/json': { schema: { type: 'array', items: ref('WebMessage') } } },
        },
        '400': error('Invalid room name.'),
      },
    },
    'POST /web/api/rooms/:room/messages/:id/actions/:action': {
      summary: 'Tap a button of a web chat message',
      requestBody: { required: true, ...json('TapRequest', 'Who taps.') },
      responses: {
        '200': json('TapReply', 'What became of the tap.'),
        '422': json(
          'TapReply',
          'An ask answer that does not fit (outcome invalid_answer, issues).',
        ),
        '400': error('Invalid body.'),
        '404': error('No such message.'),
      },
    },
  },
  telegram: { 'POST *': { summary: 'Telegram Bot API webhook (X-Telegram-Bot-Api-Secret-Token)' } },
  slack: {
    'POST /slack/events': { summary: 'Slack events and interactions (signed, X-Slack-Signature)' },
  },
  discord: {
    'POST /discord/interactions': { summary: 'Discord HTTP interactions (Ed25519 signed)' },
  },
  teams: { 'POST /api/messages': { summary: 'Microsoft Teams Bot Framework activities (JWT)' } },
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
      out[path][r.method.toLowerCase()] = {
        tags: [`platform: ${a.platform}`],
        ...(params.length ? { parameters: params } : {}),
        responses: { '200': { description: 'Handled.' } },
        ...op,
      };
    }
  return out;
}
