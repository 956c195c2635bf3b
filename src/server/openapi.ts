/**
 * GET /openapi.json: the relay's own HTTP API as OpenAPI 3.1, plus the inbound routes of the enabled
 * platforms and the notify_url webhook. A test holds it to the app's real routes both ways.
 */
import type { PlatformAdapter } from '../adapter.ts';
import { askPaths } from '../asks/openapi.ts';
import type { RelayConfig } from '../config/config.ts';
import { error, json, type PathItem, pathParam, platformPaths, text } from './openapi-parts.ts';
import { receiptPaths } from './openapi-receipts.ts';
import { SCHEMAS } from './openapi-schemas.ts';

const secured = [{ apiKey: [] }];
const AUTH_NOTE = ' Needs `Authorization: Bearer <RELAY_API_KEY>` when the relay has an API key.';

function relayPaths(config: RelayConfig): Record<string, PathItem> {
  const caseId = pathParam('id', 'The relay case id (hc_...).');
  return {
    '/v1/cases': {
      post: {
        operationId: 'createCase',
        tags: ['cases'],
        summary: 'Hand a HITL 202 body (or a bare hitl object) to the relay for a target',
        description: `The case is stored once per (service origin, case_id) and its card is posted to the target.${AUTH_NOTE}`,
        security: secured,
        requestBody: { required: true, ...json('IntakeRequest', 'The case to relay.') },
        responses: {
          '201': json('CaseView', 'Created.'),
          '200': json(
            'CaseView',
            'Already tracked: the same case as before (a target it did not have yet is added: the card is posted there too).',
          ),
          '400': error(
            'Invalid request: `details` names each failing field (its JSON path) and what to send. `error` is `invalid_json`, `invalid_request` (the envelope: target, response/hitl, notify_on, labels), `unknown_target`, `invalid_hitl` (the 202 body or hitl object, including a refused service URL) or `invalid_notify_url`.',
          ),
          '401': error('Missing or wrong API key.'),
          '413': error('Body too large.'),
          '415': error('Not application/json.'),
          '422': error(
            '`not_delivered`: no target can show the case (bad room, refused token, bot not in the channel, chat not found); `targets` and `details` give each target and why. `id` is set when the case was stored (its posts were refused).',
          ),
          '429': error('Intake rate limit reached; see Retry-After.'),
          '503': error('Shutting down, or the database is unavailable; see Retry-After.'),
        },
      },
      get: {
        operationId: 'listCases',
        tags: ['cases'],
        summary: 'Recent cases, newest first',
        description: `Without history.${AUTH_NOTE}`,
        security: secured,
        parameters: [
          {
            name: 'open',
            in: 'query',
            schema: { enum: ['1', 'true'] },
            description: 'Only cases not yet final.',
          },
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
          },
          { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
        ],
        responses: {
          '200': json('CaseList', 'The cases.'),
          '401': error('Missing or wrong API key.'),
        },
      },
    },
    '/v1/cases/{id}': {
      get: {
        operationId: 'getCase',
        tags: ['cases'],
        summary: 'A case: status, result, submitted_by / responded_by, messages, history',
        security: secured,
        parameters: [caseId],
        responses: {
          '200': json('CaseView', 'The case, with its history.'),
          '401': error('Missing or wrong API key.'),
          '404': error('No such case.'),
        },
      },
    },
    '/v1/cases/{id}/wait': {
      get: {
        operationId: 'waitCase',
        tags: ['cases'],
        summary: 'Long-poll: answers when the case is final or the timeout passes',
        description: `Check \`final\` in the answer; call again while it is false.${AUTH_NOTE}`,
        security: secured,
        parameters: [
          caseId,
          {
            name: 'timeout',
            in: 'query',
            schema: { type: 'number', minimum: 0, maximum: 120, default: 30 },
            description: 'Seconds.',
          },
        ],
        responses: {
          '200': json('CaseView', 'The case as it stands (final or not).'),
          '400': error('Invalid timeout.'),
          '401': error('Missing or wrong API key.'),
          '404': error('No such case.'),
        },
      },
    },
    '/v1/cases/{id}/repost': {
      post: {
        operationId: 'repostCase',
        tags: ['cases'],
        summary: 'Post the card again where its message is gone',
        description: `For each target whose message is \`gone\` (deleted, bot removed, chat closed) or whose post failed for good, posts the card as it stands now. Other targets are left alone.${AUTH_NOTE}`,
        security: secured,
        parameters: [caseId],
        responses: {
          '200': json('RepostResult', 'The targets posted to (empty when none was gone).'),
          '401': error('Missing or wrong API key.'),
          '404': error('No such case.'),
          '413': error('Body too large.'),
          '415': error('A body that is not application/json.'),
        },
      },
    },
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
        },
      },
    },
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
    '/healthz': {
      get: {
        operationId: 'health',
        tags: ['operations'],
        summary: 'Liveness',
        responses: { '200': { description: 'Alive: `{"ok":true}`.' } },
      },
    },
    '/readyz': {
      get: {
        operationId: 'ready',
        tags: ['operations'],
        summary: 'Readiness: every configured platform and the store are up',
        description:
          '`{ready, parts}`: one entry per part (`platform:<name>`, `store`) with `{state, reason, since}`; state is starting, up, down (retried by itself) or failed (needs a fix). The store is checked by a real write.',
        responses: {
          '200': { description: 'Every part is up.' },
          '503': { description: 'A part is not up: `parts` says which and why.' },
        },
      },
    },
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
  };
}

/** The OpenAPI 3.1 document for a relay with these adapters. */
export function openApiDocument(o: {
  config: RelayConfig;
  adapters: PlatformAdapter[];
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
      ...platformPaths(o.adapters),
    },
    webhooks: {
      notify: {
        post: {
          summary:
            'The case view, POSTed to the case\'s notify_url when it ends (or on every status change with notify_on "all")',
          description:
            'At-least-once, retried with exponential backoff; de-duplicate on X-Hitl-Relay-Delivery. Verify X-Hitl-Relay-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> with the notify secret (README, verifyNotifySignature in hitl-relay/client). Answer 2xx to stop retries.',
          parameters: [
            {
              name: 'X-Hitl-Relay-Delivery',
              in: 'header',
              required: true,
              schema: { type: 'string' },
            },
            {
              name: 'X-Hitl-Relay-Event',
              in: 'header',
              required: true,
              schema: { type: 'string' },
            },
            {
              name: 'X-Hitl-Relay-Timestamp',
              in: 'header',
              required: true,
              schema: { type: 'string' },
            },
            {
              name: 'X-Hitl-Relay-Attempt',
              in: 'header',
              required: true,
              schema: { type: 'string' },
            },
            {
              name: 'X-Hitl-Relay-Signature',
              in: 'header',
              required: false,
              schema: { type: 'string' },
            },
          ],
          requestBody: { required: true, ...json('CaseView', 'The case view at the event.') },
          responses: { '200': { description: 'Received (any 2xx).' } },
        },
      },
    },
    components: {
      schemas: SCHEMAS,
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'RELAY_API_KEY' } },
    },
  };
}
