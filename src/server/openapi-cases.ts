/** The case routes in the OpenAPI document: intake, list, read, wait, repost (see app.ts). */
import {
  AUTH_NOTE,
  caseIdParam,
  error,
  json,
  type Operation,
  type PathItem,
  secured,
} from './openapi-parts.ts';

/** POST /v1/cases: hand a case to the relay. */
function createCase(): Operation {
  return {
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
  };
}

/** GET /v1/cases: recent cases, a page at a time. */
function listCases(): Operation {
  return {
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
  };
}

/** GET /v1/cases/{id}: one case with its history. */
function getCase(): Operation {
  return {
    operationId: 'getCase',
    tags: ['cases'],
    summary: 'A case: status, result, submitted_by / responded_by, messages, history',
    security: secured,
    parameters: [caseIdParam()],
    responses: {
      '200': json('CaseView', 'The case, with its history.'),
      '401': error('Missing or wrong API key.'),
      '404': error('No such case.'),
    },
  };
}

/** GET /v1/cases/{id}/wait: the long-poll for an outcome. */
function waitCase(): Operation {
  return {
    operationId: 'waitCase',
    tags: ['cases'],
    summary: 'Long-poll: answers when the case is final or the timeout passes',
    description: `Check \`final\` in the answer; call again while it is false.${AUTH_NOTE}`,
    security: secured,
    parameters: [
      caseIdParam(),
      {
        name: 'timeout',
        in: 'query',
        schema: { type: 'number', minimum: 0, maximum: 120, default: 30 },
        description: 'Seconds.',
      },
      {
        name: 'wake',
        in: 'query',
        schema: { enum: ['expiring'] },
        description:
          '`expiring`: also answer when a warning before expiry goes out while waiting (`expiry_warning.last_at` in the answer).',
      },
    ],
    responses: {
      '200': json('CaseView', 'The case as it stands (final or not).'),
      '400': error('Invalid timeout or wake.'),
      '401': error('Missing or wrong API key.'),
      '404': error('No such case.'),
    },
  };
}

/** POST /v1/cases/{id}/repost: post the card again where its message is gone. */
function repostCase(): Operation {
  return {
    operationId: 'repostCase',
    tags: ['cases'],
    summary: 'Post the card again where its message is gone',
    description: `For each target whose message is \`gone\` (deleted, bot removed, chat closed) or whose post failed for good, posts the card as it stands now. Other targets are left alone.${AUTH_NOTE}`,
    security: secured,
    parameters: [caseIdParam()],
    responses: {
      '200': json('RepostResult', 'The targets posted to (empty when none was gone).'),
      '401': error('Missing or wrong API key.'),
      '404': error('No such case.'),
      '413': error('Body too large.'),
      '415': error('A body that is not application/json.'),
    },
  };
}

/** Paths of the case routes. */
export function casePaths(): Record<string, PathItem> {
  return {
    '/v1/cases': { post: createCase(), get: listCases() },
    '/v1/cases/{id}': { get: getCase() },
    '/v1/cases/{id}/wait': { get: waitCase() },
    '/v1/cases/{id}/repost': { post: repostCase() },
  };
}
