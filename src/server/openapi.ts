/**
 * GET /openapi.json: the relay's own HTTP API as OpenAPI 3.1, plus the inbound routes of the enabled
 * platforms and the notify_url webhook. A test holds it to the app's real routes both ways, and a
 * snapshot holds the document itself.
 */

import type { PlatformAdapter } from '../adapter.ts';
import type { RouteDocs } from '../adapter-definition.ts';
import type { RelayConfig } from '../config/config.ts';
import { apiDocsPaths } from './api-docs.ts';
import { askPaths } from './openapi-asks.ts';
import { casePaths } from './openapi-cases.ts';
import {
  AUTH_NOTE,
  error,
  json,
  type Operation,
  type PathItem,
  pathParam,
  secured,
  text,
} from './openapi-parts.ts';
import { platformPaths } from './openapi-platforms.ts';
import { receiptPaths } from './openapi-receipts.ts';
import { SCHEMAS } from './openapi-schemas.ts';

/** The Details link of a card (people follow it, not programs). */
function linkPaths(): Record<string, PathItem> {
  return {
    '/r/{key}/{sig}': {
      get: {
        operationId: 'openDetails',
        tags: ['people'],
        summary: 'The Details link of a card: redirects to the review page',
        description: 'Chat cards link here, so the review URL token never reaches a chat platform.',
        parameters: [pathParam('key', 'The case key.'), pathParam('sig', 'The link signature.')],
        responses: {
          '303': { description: "Redirect to the service's review_url." },
          '404': error('Unknown or invalid link.'),
          '410': {
            description:
              'The review link was retired: the case ended and its review_url was dropped from the store (an HTML page says when and how the case ended).',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
  };
}

/** The signed status callbacks of HITL services, at the configured CALLBACK_PATH. */
function callbackPaths(config: RelayConfig): Record<string, PathItem> {
  return {
    [config.callbackPath]: {
      post: {
        operationId: 'receiveCallback',
        tags: ['services'],
        summary: 'Signed status callbacks from HITL services (spec section 11, X-HITL-Signature)',
        description:
          'The callback_url the relay gives services. Unsigned or wrongly signed callbacks are refused.',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        responses: {
          '200': {
            description:
              "Accepted (the relay reads the case's state from poll_url), or the case is already final.",
          },
          '400': error('Not a callback.'),
          '401': error('Missing or bad signature.'),
          '413': error('Body too large.'),
          '415': error('Not application/json.'),
        },
      },
    },
  };
}

/** GET /readyz: the readiness of each part. */
function ready(): Operation {
  return {
    operationId: 'ready',
    tags: ['operations'],
    summary: 'Readiness: every configured platform and the store are up',
    description:
      '`{ready, parts}`: one entry per part (`platform:<name>`, `store`) with `{state, reason, since}`; state is starting, up, down (retried by itself) or failed (needs a fix). The store is checked by a real write.',
    responses: {
      '200': { description: 'Every part is up.' },
      '503': { description: 'A part is not up: `parts` says which and why.' },
    },
  };
}

/** Liveness, readiness, metrics and this document. */
function operationsPaths(): Record<string, PathItem> {
  return {
    '/healthz': {
      get: {
        operationId: 'health',
        tags: ['operations'],
        summary: 'Liveness',
        responses: { '200': { description: 'Alive: `{"ok":true}`.' } },
      },
    },
    '/readyz': { get: ready() },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['operations'],
        summary: 'Prometheus metrics',
        description: `Posts, edits, 429s, submits, polls, notify deliveries, takeovers, SSE connections, open and undelivered cases.${AUTH_NOTE}`,
        security: secured,
        responses: {
          '200': text('Prometheus text format.'),
          '401': error('Missing or wrong API key.'),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        tags: ['operations'],
        summary: 'This document',
        responses: {
          '200': {
            description: 'OpenAPI 3.1.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    ...apiDocsPaths(),
  };
}

/** The relay's own routes, group by group. */
function relayPaths(config: RelayConfig): Record<string, PathItem> {
  return {
    ...casePaths(),
    ...linkPaths(),
    ...callbackPaths(config),
    ...operationsPaths(),
  };
}

/** The headers of a notify_url delivery (all but the signature are always sent). */
const NOTIFY_HEADERS = [
  'X-Hitl-Relay-Delivery',
  'X-Hitl-Relay-Event',
  'X-Hitl-Relay-Timestamp',
  'X-Hitl-Relay-Attempt',
  'X-Hitl-Relay-Signature',
];

/** The notify_url webhook: what the relay POSTs to an agent. */
function notifyWebhook(): Operation {
  return {
    summary:
      'The case view, POSTed to the case\'s notify_url when it ends (or on every status change with notify_on "all")',
    description:
      'At-least-once, retried with exponential backoff; de-duplicate on X-Hitl-Relay-Delivery. Verify X-Hitl-Relay-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> with the notify secret (docs/webhooks.md, verifyNotifySignature in @hitl-relay/client). Answer 2xx to stop retries.',
    parameters: NOTIFY_HEADERS.map((name) => ({
      name,
      in: 'header',
      required: name !== 'X-Hitl-Relay-Signature',
      schema: { type: 'string' },
    })),
    requestBody: { required: true, ...json('CaseView', 'The case view at the event.') },
    responses: { '200': { description: 'Received (any 2xx).' } },
  };
}

/** The OpenAPI 3.1 document for a relay with these adapters. */
export function openApiDocument(o: {
  config: RelayConfig;
  adapters: PlatformAdapter[];
  /** What each platform's routes are (platforms/registry.ts platformRouteDocs), keyed by platform. */
  routeDocs?: Readonly<Record<string, RouteDocs>>;
}): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'hitl-relay',
      version: '1',
      description:
        "Brings HITL Protocol review cases into chats. Agents POST a service's 202 body to /v1/cases and read the outcome with /v1/cases/{id}/wait or a signed notify_url webhook.",
    },
    servers: [{ url: o.config.publicUrl ?? '/' }],
    paths: {
      ...relayPaths(o.config),
      ...receiptPaths(),
      ...askPaths(),
      ...platformPaths(o.adapters, o.routeDocs ?? {}),
    },
    webhooks: { notify: { post: notifyWebhook() } },
    components: {
      schemas: SCHEMAS,
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'RELAY_API_KEY' } },
    },
  };
}
