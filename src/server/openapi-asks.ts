/** The OpenAPI paths of asks: the agent API (/v1/asks) and the relay's own HITL service (/asks). */

import { ALL_KINDS } from '../asks/content.ts';
import { ASKS_MOUNT_PATH } from '../asks-service/service.ts';
import { error, pathParam, text } from './openapi-parts.ts';

const secured = [{ apiKey: [] }];
const id = pathParam('id', 'The relay case id (hc_...).');
const caseId = pathParam('id', "The service's case_id.");
const obj = { type: 'object' } as const;
const jsonBody = (description: string, schema: Record<string, unknown> = obj) => ({
  description,
  content: { 'application/json': { schema } },
});

const ASK_REQUEST = {
  type: 'object',
  required: ['target', 'content'],
  additionalProperties: false,
  properties: {
    target: { type: 'string', minLength: 3, maxLength: 300 },
    content: {
      type: 'object',
      required: ['type', 'sub_type', 'prompt'],
      description: `One of the ten kinds (${ALL_KINDS.join(', ')}), snake_case as the hgateway SDK serialises it; see docs/asks.md.`,
      properties: {
        type: { type: 'string' },
        sub_type: { type: 'string' },
        prompt: { type: 'string' },
      },
    },
    expires_in: {
      type: 'integer',
      minimum: 1,
      maximum: 2_592_000,
      description: 'Seconds (default 86400).',
    },
    expires_at: { type: 'string', format: 'date-time' },
    default: { enum: ['skip', 'approve', 'reject', 'abort'] },
    notify_url: { type: 'string', maxLength: 2048 },
    hitl_callback_url: {
      type: 'string',
      maxLength: 2048,
      description:
        'Spec 9 callbacks: each terminal event (review.completed, review.expired, review.cancelled) is POSTed here with X-HITL-Signature (HMAC-SHA256 of the body under the notify secret) and an event_id to de-duplicate on; echoed as hitl.callback_url. Checked like any outbound URL (400 naming the field); redirects are not followed.',
    },
    notify_on: { enum: ['final', 'all'] },
    labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 256 } },
  },
};

const ASK_VIEW = {
  type: 'object',
  required: ['id', 'kind', 'status', 'final', 'answer', 'approval', 'policy', 'case'],
  properties: {
    id: { type: 'string' },
    kind: { type: ['string', 'null'] },
    status: { type: 'string' },
    final: { type: 'boolean' },
    answer: { type: ['object', 'null'], description: 'result.data in the kind shape.' },
    approval: {
      type: ['object', 'null'],
      description:
        "agentos' ApprovalDecision (approved, modifications.output / instructions), args for tool_args. An approval kind that ended without an answer (expired, cancelled) is {approved: false, reason}, in the client's words; null for kinds that are not approvals and while open.",
    },
    policy: {
      type: ['object', 'null'],
      description:
        "Nobody decided and a timeout policy answers: {action, source: escalation_final | expiry, reason}. Never a person's answer.",
      properties: {
        action: { type: 'string' },
        source: { enum: ['escalation_final', 'expiry'] },
        reason: { type: 'string' },
      },
    },
    case: { type: 'object', description: 'The case view of /v1/cases/{id}.' },
  },
};

const CREATE_ASK = {
  post: {
    operationId: 'createAsk',
    tags: ['asks'],
    summary: 'Ask the relay directly: one of the ten interaction kinds, answered natively in chat',
    description:
      "The relay stores the case in its own HITL service and answers 202 with that service's v0.8 `hitl` object (plus `relay`, the typed view); the case is then posted to the target like any other. Needs `Authorization: Bearer <RELAY_API_KEY>` when the relay has an API key.",
    security: secured,
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes a retry safe: the same key with the same body (within 24 h) answers the same 202 (header `Idempotent-Replayed: true`) and posts no second card; the same key with another body answers 422.',
        schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
      },
    ],
    requestBody: { required: true, ...jsonBody('The ask.', ASK_REQUEST) },
    responses: {
      '202': jsonBody('The 202 body: status, message, hitl, relay.'),
      '400': error(
        'Invalid ask (`details` names each failing field), or an invalid Idempotency-Key.',
      ),
      '409': error('A request with this Idempotency-Key is still being handled; see Retry-After.'),
      '422': error(
        'This Idempotency-Key was used with a different body (`idempotency_key_reused`).',
      ),
      '401': error('Missing or wrong API key.'),
      '413': error('Body too large.'),
      '415': error('Not application/json.'),
      '429': error('Intake rate limit reached; see Retry-After.'),
    },
  },
};

const GET_ASK = {
  get: {
    operationId: 'getAsk',
    tags: ['asks'],
    summary: 'An ask, typed: kind, status, answer (result.data), approval view',
    security: secured,
    parameters: [id],
    responses: {
      '200': jsonBody('The ask.', ASK_VIEW),
      '401': error('Missing or wrong API key.'),
      '404': error('No such ask.'),
    },
  },
};

const WAIT_ASK = {
  get: {
    operationId: 'waitAsk',
    tags: ['asks'],
    summary: 'Long-poll an ask until it is final or the timeout passes',
    security: secured,
    parameters: [
      id,
      { name: 'timeout', in: 'query', schema: { type: 'number', minimum: 0, maximum: 120 } },
    ],
    responses: {
      '200': jsonBody('The ask as it stands.', ASK_VIEW),
      '400': error('Invalid timeout.'),
      '401': error('Missing or wrong API key.'),
      '404': error('No such ask.'),
    },
  },
};

const SERVICE_POLL = {
  get: {
    operationId: 'askServicePoll',
    tags: ['asks service'],
    summary: 'HITL poll_url of an ask (ETag / If-None-Match, Retry-After)',
    parameters: [caseId],
    responses: {
      '200': jsonBody('Poll response (spec 8).'),
      '304': { description: 'Unchanged.' },
      '404': error('No such case.'),
    },
  },
};

const SERVICE_EVENTS = {
  get: {
    operationId: 'askServiceEvents',
    tags: ['asks service'],
    summary: 'HITL events_url of an ask (SSE, Last-Event-ID)',
    parameters: [caseId],
    responses: {
      '200': text('Server-sent events.', 'text/event-stream'),
      '404': error('No such case.'),
    },
  },
};

const SERVICE_RESPOND = {
  post: {
    operationId: 'askServiceRespond',
    tags: ['asks service'],
    summary: 'HITL submit_url (Bearer submit_token) and the review page form post (?token=)',
    description:
      'The answer is checked against the ask; a bad one gets 400 with `details` and nothing is recorded.',
    parameters: [caseId],
    responses: {
      '200': jsonBody('Recorded.'),
      '400': error('Invalid answer.'),
      '401': error('Bad token.'),
      '403': error('Action not inline.'),
      '409': error('Already answered or cancelled.'),
      '404': error('No such case.'),
      '410': error('Expired.'),
      '413': error('Body too large.'),
      '415': error('Not JSON or a form.'),
      '429': error('Too many requests.'),
    },
  },
};

const SERVICE_CANCEL = {
  post: {
    operationId: 'askServiceCancel',
    tags: ['asks service'],
    summary: 'The reviewer declines the whole ask (review token)',
    parameters: [caseId],
    responses: {
      '200': jsonBody('Cancelled.'),
      '401': error('Bad token.'),
      '404': error('No such case.'),
      '413': error('Body too large.'),
      '415': error('Not JSON or a form.'),
    },
  },
};

const SERVICE_PROGRESS = {
  post: {
    operationId: 'askServiceProgress',
    tags: ['asks service'],
    summary: 'Review page progress report (review token)',
    parameters: [caseId],
    responses: {
      '200': jsonBody('Recorded.'),
      '401': error('Bad token.'),
      '404': error('No such case.'),
      '413': error('Body too large.'),
      '415': error('Not JSON or a form.'),
    },
  },
};

const SERVICE_PAGE = {
  get: {
    operationId: 'askServiceReviewPage',
    tags: ['asks service'],
    summary: 'HITL review_url of an ask: native HTML controls for every kind (signed by its token)',
    parameters: [caseId],
    responses: {
      '200': text('HTML.', 'text/html'),
      '401': text('Wrong token.', 'text/html'),
      '404': text('No such case.', 'text/html'),
    },
  },
};

/** v0.9 discovery of the relay's own HITL service: Appendix D's hitl.json, and the same at /hitl. */
const DISCOVERY = (operationId: string) => ({
  get: {
    operationId,
    tags: ['asks'],
    summary: "Discovery document of the relay's own HITL service (HITL Protocol v0.9, Appendix D)",
    description:
      'Public, no key: the service, its versions, review types, poll and ask limits. Cached 5 minutes.',
    responses: {
      '200': {
        description: 'The discovery document.',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  },
});

/** The paths, keyed as OpenAPI paths. */
export function askPaths(): Record<string, Record<string, Record<string, unknown>>> {
  const base = ASKS_MOUNT_PATH;
  return {
    '/.well-known/hitl.json': DISCOVERY('getHitlDiscovery'),
    '/.well-known/hitl': DISCOVERY('getHitlDiscoveryAlias'),
    '/v1/asks': CREATE_ASK,
    '/v1/asks/{id}': GET_ASK,
    '/v1/asks/{id}/wait': WAIT_ASK,
    [`${base}/api/reviews/{id}/status`]: SERVICE_POLL,
    [`${base}/api/reviews/{id}/events`]: SERVICE_EVENTS,
    [`${base}/api/reviews/{id}/respond`]: SERVICE_RESPOND,
    [`${base}/api/reviews/{id}/cancel`]: SERVICE_CANCEL,
    [`${base}/api/reviews/{id}/progress`]: SERVICE_PROGRESS,
    [`${base}/review/{id}`]: SERVICE_PAGE,
  };
}
