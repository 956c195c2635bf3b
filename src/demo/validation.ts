/** Input validation (zod): case creation, the inline submit request, progress, test-control bodies. */
import { z } from 'zod';
import { STANDARD_TYPES } from './review-types.ts';

const X_PREFIXED = z.string().regex(/^x-/);
const CASE_ID = z.string().regex(/^[a-zA-Z0-9_-]+$/);
// RFC 3339 with seconds and a zone, which is what the schemas' `date-time` format demands.
const DATE_TIME = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i)
  .refine((s) => !Number.isNaN(Date.parse(s)), 'not a valid date-time');

/** True for https URLs and for plain http to localhost / 127.0.0.1 (spec 13.3, local development). */
export function isAllowedHitlUrl(value: string): boolean {
  return /^(https:\/\/.+|http:\/\/(localhost|127\.0\.0\.1)(:[0-9]+)?(\/.*)?$)/.test(value);
}

/** `?type=` and `?inline=` of the create endpoint. */
export const CreateQuery = z.object({
  type: z
    .union([z.enum(STANDARD_TYPES), z.string().regex(/^x-[a-zA-Z0-9_-]+$/)])
    .default('approval'),
  inline: z
    .enum(['1', '0', 'true', 'false'])
    .default('1')
    .transform((v) => v === '1' || v === 'true'),
});

const FORM_FIELD = z.strictObject({
  key: z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/),
  label: z.string().max(200),
  type: z.string(),
  required: z.boolean().optional(),
  placeholder: z.string().optional(),
  hint: z.string().optional(),
  default: z.unknown().optional(),
  default_ref: z.url().optional(),
  sensitive: z.boolean().optional(),
  options: z.array(z.strictObject({ value: z.string(), label: z.string() })).optional(),
  validation: z
    .strictObject({
      minLength: z.number().int().min(0).optional(),
      maxLength: z.number().int().min(0).optional(),
      pattern: z.string().optional(),
      min: z.number().optional(),
      max: z.number().optional(),
    })
    .optional(),
  conditional: z
    .strictObject({
      field: z.string(),
      operator: z.enum(['eq', 'neq', 'in', 'gt', 'lt']),
      value: z.unknown(),
    })
    .optional(),
});

/** `context.form` as hitl-object.schema.json defines it: either fields or steps. */
export const FormSchema = z.union([
  z.strictObject({ fields: z.array(FORM_FIELD), session_id: z.string().optional() }),
  z.strictObject({
    steps: z.array(
      z.strictObject({
        title: z.string(),
        description: z.string().optional(),
        fields: z.array(FORM_FIELD),
      }),
    ),
    session_id: z.string().optional(),
  }),
]);

/** One form field definition. */
export type FormField = z.infer<typeof FORM_FIELD>;

/** The optional JSON body of the create endpoint; unknown keys (the agent's own request) are ignored. */
export const CreateBody = z.object({
  prompt: z.string().min(1).max(500).optional(),
  expires_in_seconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .optional(),
  reminder_at: z.union([DATE_TIME, z.array(DATE_TIME).min(1)]).optional(),
  previous_case_id: CASE_ID.optional(),
  hitl_callback_url: z
    .string()
    .refine(isAllowedHitlUrl, 'must be https, or http on localhost/127.0.0.1')
    .nullable()
    .optional(),
  context: z
    .record(z.string(), z.unknown())
    .refine((ctx) => ctx.form === undefined || FormSchema.safeParse(ctx.form).success, {
      message: 'context.form does not match the form schema',
    })
    .optional(),
  inline_actions: z.array(z.string()).optional(),
  verification: z.enum(['required', 'step_up', 'optional']).optional(),
});

/** The parsed create body. */
export type CreateBodyInput = z.infer<typeof CreateBody>;

const EVIDENCE = z.strictObject({
  proof_type: z.union([z.enum(['proof_of_human']), X_PREFIXED]),
  provider: z.string(),
  format: z.union([z.enum(['provider_opaque', 'jwt', 'zkp', 'attestation']), X_PREFIXED]),
  presentation: z.union([z.string(), z.record(z.string(), z.unknown())]),
  binding: z.looseObject({
    case_id: z.string().optional(),
    action: z.string().optional(),
    challenge: z.string().optional(),
  }),
});

/** Mirrors submit-request.schema.json (v0.8) exactly. */
export const SubmitRequest = z.strictObject({
  action: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
  submitted_via: z.union([
    z.enum([
      'telegram_inline_button',
      'slack_block_action',
      'discord_component',
      'whatsapp_reply_button',
      'teams_adaptive_card',
    ]),
    X_PREFIXED,
  ]),
  submitted_by: z.strictObject({
    platform: z.union([z.enum(['telegram', 'slack', 'discord', 'whatsapp', 'teams']), X_PREFIXED]),
    platform_user_id: z.string(),
    display_name: z.string().optional(),
  }),
  verification_evidence: z.array(EVIDENCE).optional(),
});

/** A parsed inline submit request. */
export type SubmitRequestBody = z.infer<typeof SubmitRequest>;

/** Evidence items of an inline submit. */
export type VerificationEvidence = z.infer<typeof EVIDENCE>;

/** The review page's progress report. */
export const ProgressBody = z.strictObject({
  current_step: z.number().int().min(1).optional(),
  total_steps: z.number().int().min(1).optional(),
  completed_fields: z.number().int().min(0).optional(),
  total_fields: z.number().int().min(0).optional(),
});

/** A browser (review page) answer sent as JSON. */
export const BrowserAnswer = z.object({
  action: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
  responded_by: z
    .strictObject({ name: z.string().min(1).optional(), email: z.email().optional() })
    .optional(),
});

/** `POST _test/reviews/:id/act`. */
export const ActBody = z.strictObject({
  step: z.enum(['open', 'progress', 'respond', 'cancel', 'expire', 'remind']),
  action: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  progress: ProgressBody.optional(),
  reason: z.string().optional(),
  responded_by: z
    .strictObject({ name: z.string().min(1).optional(), email: z.email().optional() })
    .optional(),
});

/** `POST _test/faults`. */
export const FaultBody = z.strictObject({
  route: z.enum(['status', 'respond', 'events', 'create']),
  kind: z.enum([
    '500',
    '503',
    'slow',
    'malformed_json',
    'wrong_content_type',
    'truncated',
    'reset',
    '429',
    '429_no_retry_after',
  ]),
  count: z.number().int().min(1).max(1000).default(1),
  delay_ms: z.number().int().min(0).max(120_000).optional(),
});

/** zod issues as `[{path, message}]`, the shape the relay uses too. */
export function issueList(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}
