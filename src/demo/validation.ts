/** Input validation (zod) of the demo's own routes: creating a case, and the test-control bodies. */
import { z } from 'zod';
import { STANDARD_TYPES } from '../hitl-service/review-types.ts';
import { FormSchema, ProgressBody } from '../hitl-service/validation.ts';

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
