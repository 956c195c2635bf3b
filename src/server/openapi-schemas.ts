/** JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the relay's API bodies. */

const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The components.schemas of the document. */
export const SCHEMAS = {
  HitlObject: {
    type: 'object',
    description:
      "A HITL Protocol `hitl` object (spec section 6); unknown fields are kept. See the protocol's hitl-object.schema.json.",
    required: [
      'spec_version',
      'case_id',
      'review_url',
      'poll_url',
      'type',
      'prompt',
      'created_at',
      'expires_at',
    ],
    properties: {
      spec_version: {
        type: 'string',
        maxLength: 32,
        description: 'Any version is read; one newer than 0.8 (or unknown) adds a warning.',
      },
      case_id: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: 255 },
      review_url: { type: 'string', format: 'uri' },
      poll_url: { type: 'string', format: 'uri' },
      events_url: { type: 'string', format: 'uri' },
      callback_url: { type: ['string', 'null'], format: 'uri' },
      type: {
        type: 'string',
        maxLength: 64,
        description:
          'approval, selection, input, confirmation, escalation or x-<custom>; any other type gives a link-only card with a warning',
      },
      prompt: {
        type: 'string',
        minLength: 1,
        maxLength: 20000,
        description: 'Over 500 characters (the spec limit) it is cut on the card, with a warning.',
      },
      timeout: str,
      default_action: {
        type: 'string',
        description: 'skip, approve, reject or abort; another value is kept with a warning',
      },
      created_at: dateTime,
      expires_at: dateTime,
      context: { type: 'object' },
      reminder_at: { oneOf: [dateTime, { type: 'array', items: dateTime }] },
      previous_case_id: str,
      submit_url: { type: 'string', format: 'uri' },
      submit_token: {
        type: 'string',
        description:
          'Under 32 characters (the spec minimum) the card is link-only, with a warning.',
      },
      inline_actions: { type: 'array', items: str },
      verification_policy: { type: 'object' },
    },
  },
  Response202: {
    type: 'object',
    description: "The whole body of a service's HTTP 202 answer.",
    required: ['status', 'hitl'],
    properties: {
      status: { const: 'human_input_required' },
      message: str,
      hitl: ref('HitlObject'),
    },
  },
  IntakeRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['target'],
    oneOf: [{ required: ['response'] }, { required: ['hitl'] }],
    properties: {
      target: {
        type: 'string',
        minLength: 3,
        maxLength: 300,
        description: 'platform:address or route:name',
      },
      response: ref('Response202'),
      hitl: ref('HitlObject'),
      notify_url: {
        type: 'string',
        format: 'uri',
        maxLength: 2048,
        description: 'Receives the signed case view when the case ends (see webhooks).',
      },
      notify_on: { enum: ['final', 'all'], default: 'final' },
      labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 256 } },
      service_auth: {
        type: 'object',
        additionalProperties: false,
        required: ['headers'],
        description:
          "Credentials the service wants on its watch endpoints (spec 8: poll_url accepts the original call's auth), e.g. {headers: {Authorization: 'Bearer ...'}}. Stored sealed like submit_token; sent only to poll_url and events_url of the case's origin, never on a redirect, never shown or logged.",
        properties: {
          headers: {
            type: 'object',
            minProperties: 1,
            maxProperties: 8,
            additionalProperties: { type: 'string', maxLength: 4096 },
          },
        },
      },
      requested_by: {
        type: 'string',
        maxLength: 200,
        description:
          'Who asked: an identity from RELAY_CONFIG `identities` or `platform:user`. An approval policy keeps them from approving their own request.',
      },
    },
  },
  SubmittedBy: {
    type: 'object',
    required: ['platform', 'platform_user_id'],
    properties: { platform: str, platform_user_id: str, display_name: str },
  },
  CaseView: {
    type: 'object',
    description:
      'A case as the relay reports it. It never carries a secret (no submit_token, no review URL token).',
    required: [
      'id',
      'case_id',
      'service',
      'target',
      'type',
      'prompt',
      'status',
      'final',
      'result',
      'submitted_by',
      'responded_by',
      'submission_context',
      'verification_result',
      'confirmed',
      'unconfirmed_reason',
      'watch',
      'progress',
      'default_action',
      'reason',
      'status_at',
      'expires_at',
      'previous_id',
      'next_id',
      'next_case_id',
      'labels',
      'warnings',
      'created_at',
      'updated_at',
      'delivery',
      'messages',
    ],
    additionalProperties: false,
    properties: {
      id: { type: 'string', description: "The relay's id." },
      case_id: { type: 'string', description: "The service's case_id." },
      service: { type: 'string', description: "The service's origin." },
      target: str,
      type: str,
      prompt: str,
      status: { enum: ['pending', 'opened', 'in_progress', 'completed', 'expired', 'cancelled'] },
      final: { type: 'boolean' },
      result: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            required: ['action'],
            properties: { action: str, data: { type: 'object' } },
          },
        ],
      },
      submitted_by: { oneOf: [{ type: 'null' }, ref('SubmittedBy')] },
      responded_by: {
        oneOf: [{ type: 'null' }, { type: 'object', properties: { name: str, email: str } }],
      },
      submission_context: {
        type: ['object', 'null'],
        description:
          'v0.8: how the answer was submitted (browser_submit / inline_submit), from the service.',
      },
      verification_result: {
        type: ['object', 'null'],
        description: 'v0.8 submission_context.verification_result, from the service.',
      },
      confirmed: {
        type: 'boolean',
        description:
          'False when the relay concluded the status itself (expired locally while the service could not be read).',
      },
      unconfirmed_reason: strOrNull,
      watch: {
        type: 'object',
        description: "How watching the case goes: 'ok', or why the relay cannot see its status.",
        required: ['state', 'last_error', 'since'],
        properties: {
          state: {
            enum: ['ok', 'unreachable', 'refused', 'gone', 'invalid', 'rate_limited', 'failing'],
          },
          last_error: strOrNull,
          since: dateTime,
        },
      },
      progress: { type: ['object', 'null'] },
      policy: {
        type: ['object', 'null'],
        description:
          'The approval policy in force and the votes counted so far (README: Approval policies).',
        properties: {
          name: { type: 'string' },
          required: { type: 'integer' },
          votes: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                identity: { type: 'string' },
                action: { type: 'string' },
                at: dateTime,
              },
            },
          },
        },
      },
      escalation: {
        type: ['object', 'null'],
        description: 'The escalation ladder: steps taken, steps in all, when the next is due.',
        properties: {
          step: { type: 'integer' },
          of: { type: 'integer' },
          next_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
      default_action: strOrNull,
      reason: strOrNull,
      status_at: { type: ['string', 'null'], format: 'date-time' },
      expires_at: dateTime,
      previous_id: strOrNull,
      next_id: strOrNull,
      next_case_id: strOrNull,
      labels: { type: 'object', additionalProperties: str },
      warnings: { type: 'array', items: str },
      created_at: dateTime,
      updated_at: dateTime,
      delivery: {
        type: 'object',
        description:
          'Whether a card reached anyone: delivered (at least one target shows it), pending (not yet: the platform is slow or failing for now; retried), failed (the relay gave up; /wait returns at once).',
        required: ['state', 'reason'],
        properties: { state: { enum: ['delivered', 'pending', 'failed'] }, reason: strOrNull },
      },
      messages: {
        type: 'array',
        items: {
          type: 'object',
          required: ['target', 'state', 'current', 'error', 'posted_at'],
          properties: {
            target: str,
            state: {
              enum: ['posting', 'posted', 'failed', 'gone'],
              description:
                'gone: the message was deleted, the bot removed or the chat closed; POST /v1/cases/{id}/repost posts it again.',
            },
            current: { type: 'boolean' },
            error: strOrNull,
            posted_at: { type: ['string', 'null'], format: 'date-time' },
          },
        },
      },
      history: {
        type: 'array',
        description: 'The audit trail (GET /v1/cases/{id} and /wait only).',
        items: {
          type: 'object',
          required: ['at', 'kind'],
          properties: { at: dateTime, kind: str },
        },
      },
    },
  },
  RepostResult: {
    type: 'object',
    required: ['reposted', 'case'],
    properties: {
      reposted: { type: 'array', items: { type: 'string' }, description: 'Targets posted to.' },
      case: ref('CaseView'),
    },
  },
  CaseList: {
    type: 'object',
    required: ['cases'],
    properties: { cases: { type: 'array', items: ref('CaseView') } },
  },
  Error: {
    type: 'object',
    required: ['error', 'message'],
    properties: {
      error: str,
      message: str,
      details: {
        type: 'array',
        items: {
          type: 'object',
          required: ['path', 'message'],
          properties: { path: str, message: str },
        },
      },
    },
  },
  WebMessage: {
    type: 'object',
    required: ['id', 'case', 'text', 'actions', 'link', 'status', 'final'],
    properties: {
      id: str,
      case: strOrNull,
      reply_to: strOrNull,
      text: str,
      title: str,
      prompt: str,
      lines: { type: 'array', items: str },
      hint: strOrNull,
      actions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['action', 'label'],
          properties: { action: str, label: str, style: str, confirm: { type: 'boolean' } },
        },
      },
      link: {
        oneOf: [
          { type: 'null' },
          { type: 'object', required: ['label', 'url'], properties: { label: str, url: str } },
        ],
      },
      status: str,
      final: { type: 'boolean' },
      state: {
        description: "The case's state, for the card's badge; null for a notice (reminder).",
        oneOf: [
          { type: 'null' },
          {
            type: 'string',
            enum: ['pending', 'opened', 'in_progress', 'completed', 'expired', 'cancelled'],
          },
        ],
      },
      ask: {
        type: 'object',
        description: 'An open ask: its kind and content, drawn as native controls.',
        required: ['kind', 'content'],
        properties: { kind: str, content: { type: 'object' } },
      },
    },
  },
  TapRequest: {
    type: 'object',
    required: ['user'],
    properties: {
      user: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'string', minLength: 1, maxLength: 128 },
          name: { type: 'string', maxLength: 128 },
        },
      },
      data: {
        type: 'object',
        description: 'An ask answer from native controls (result.data shape).',
      },
      confirmed: { const: true, description: 'The person already confirmed an irreversible pick.' },
    },
  },
  TapReply: {
    type: 'object',
    required: ['outcome', 'text', 'message'],
    properties: {
      outcome: {
        enum: [
          'submitted',
          'confirm_required',
          'forbidden',
          'not_allowed',
          'closed',
          'busy',
          'service_busy',
          'use_review_url',
          'inline_unavailable',
          'refused',
          'rate_limited',
          'rate_limited_now',
          'unconfirmed',
          'service_failed',
          'redirected',
          'failed',
          'submit_unknown',
          'submit_not_recorded',
          'invalid_answer',
          'unknown_case',
        ],
      },
      text: str,
      issues: {
        type: 'array',
        description: 'For invalid_answer: each problem and the field it concerns.',
        items: {
          type: 'object',
          required: ['path', 'message'],
          properties: { path: str, message: str },
        },
      },
      message: ref('WebMessage'),
    },
  },
} as const;
