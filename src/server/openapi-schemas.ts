/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the relay's API bodies. Bodies the relay
 * validates with zod (HitlObject, IntakeRequest) are generated from those schemas.
 */
import { SUBMITTED_BY_CLAIM } from '../protocol/claims.ts';
import { hitlObjectSchema } from '../protocol/hitl.ts';
import { intakeSchema } from './intake-schema.ts';
import { jsonSchemaOf } from './openapi-parts.ts';

const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const intake = jsonSchemaOf(intakeSchema);

/** The components.schemas of the document. */
export const SCHEMAS = {
  HitlObject: jsonSchemaOf(hitlObjectSchema),
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
    ...intake,
    oneOf: [{ required: ['response'] }, { required: ['hitl'] }],
    properties: {
      ...(intake.properties as Record<string, unknown>),
      response: ref('Response202'),
      hitl: ref('HitlObject'),
    },
  },
  SubmittedBy: {
    type: 'object',
    description: `Who tapped: ${SUBMITTED_BY_CLAIM}.`,
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
      'review_link',
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
          'The approval policy in force and the votes counted so far (docs/four-eyes.md).',
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
        description:
          "The escalation ladder: steps taken, steps in all, when the next is due, and its final rung (null: the case waits for the service's expiry).",
        properties: {
          step: { type: 'integer' },
          of: { type: 'integer' },
          next_at: { type: ['string', 'null'], format: 'date-time' },
          final: {
            type: ['object', 'null'],
            description:
              "The final rung: when due and nobody decided, the relay's wait ends with outcome `policy` and `action` is the ladder's policy answer (a timeout policy: never submitted, never a person's decision; decided_by is always null). submitted, not_possible and failed appear only in cases an older relay recorded.",
            properties: {
              action: str,
              at: dateTime,
              outcome: {
                type: ['string', 'null'],
                enum: [null, 'policy', 'submitted', 'not_possible', 'failed'],
              },
              decided_by: { type: 'null' },
              reason: strOrNull,
            },
          },
        },
      },
      expiry_warning: {
        type: ['object', 'null'],
        description:
          'Warnings before expiry (null: none configured): thresholds in seconds before expires_at (largest first), each warning sent, when the last went out and when the next is due. Each warning is a reply on every card and an `expiring` notify event.',
        properties: {
          before_seconds: { type: 'array', items: { type: 'integer' } },
          sent: {
            type: 'array',
            items: {
              type: 'object',
              properties: { before_seconds: { type: 'integer' }, at: dateTime },
            },
          },
          last_at: { type: ['string', 'null'], format: 'date-time' },
          next_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
      default_action: strOrNull,
      reason: strOrNull,
      status_at: { type: ['string', 'null'], format: 'date-time' },
      review_link: {
        type: 'object',
        description:
          "The service's review link: kept (at: when it is due to be dropped, null while open) or retired (at: when the relay dropped it; the Details link answers 410 Gone since).",
        required: ['state', 'at'],
        properties: {
          state: { type: 'string', enum: ['kept', 'retired'] },
          at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
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
  InboxBulkRequest: {
    type: 'object',
    required: ['user'],
    description: 'A preview (`action` and `keys`) or its confirmation (`confirm`).',
    properties: {
      user: { $ref: '#/components/schemas/TapRequest/properties/user' },
      action: { type: 'string', pattern: '^[a-z_]{1,32}$' },
      keys: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string' } },
      confirm: { type: 'string', description: 'The token of a preview (single use).' },
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
