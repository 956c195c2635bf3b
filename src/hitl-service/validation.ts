/** Input validation (zod): context.form, the inline submit request, progress and browser answers. */
import { z } from 'zod';

const X_PREFIXED = z.string().regex(/^x-/);
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
export type ReviewFormField = z.infer<typeof FORM_FIELD>;

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

/** zod issues as `[{path, message}]`, the shape the relay uses too. */
export function issueList(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}
