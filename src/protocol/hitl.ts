/** Parsing and validation of HTTP 202 bodies and their `hitl` object (spec v0.6-v0.8 section 6). */
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import { toIssues } from './issues.ts';
import { KNOWN_SPEC_VERSIONS, REVIEW_TYPES } from './types.ts';

const CASE_ID = /^[A-Za-z0-9_-]+$/;

const url = z
  .string()
  .max(4096)
  .refine(
    (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol),
    'must be an absolute http(s) URL',
  )
  .meta({ format: 'uri' });
const dateTime = z.iso.datetime({ offset: true });
const caseId = z.string().min(1).max(255).regex(CASE_ID, 'must be URL-safe (A-Z a-z 0-9 _ -)');

const formField = z.looseObject({
  key: z.string().optional(),
  name: z.string().optional(),
  label: z.string().optional(),
  type: z.string().optional(),
  sensitive: z.boolean().optional(),
});

const form = z.looseObject({
  fields: z.array(formField).optional(),
  steps: z.array(z.looseObject({ title: z.string(), fields: z.array(formField) })).optional(),
});

/**
 * The one definition of a `hitl` object as the relay reads it: parseHitl validates with it, the
 * HitlObject type is inferred from it, and /openapi.json's HitlObject is generated from it (the
 * `.meta` descriptions are the documentation).
 */
const hitlShape = {
  // Any version string is taken in; one the relay does not know is not interpreted (parseHitl).
  spec_version: z.string().min(1).max(32).meta({
    description:
      'Any version is taken in; one the relay does not know (other than 0.5-0.9) is not interpreted: a link-only card with a warning, nothing submitted.',
  }),
  case_id: caseId,
  review_url: url,
  poll_url: url,
  callback_url: url.nullable().optional(),
  events_url: url.optional(),
  // A type or default_action of a newer version is read too: link-only, with a warning.
  type: z.string().min(1).max(64).meta({
    description:
      'approval, selection, input, confirmation, escalation or x-<custom>; any other type gives a link-only card with a warning',
  }),
  // Bounded, but longer than the spec's 500: a longer prompt is cut on the card with a warning.
  prompt: z.string().min(1).max(20_000).meta({
    description: 'Over 500 characters (the spec limit) it is cut on the card, with a warning.',
  }),
  timeout: z.string().max(64).optional(),
  default_action: z.string().min(1).max(64).optional().meta({
    description: 'skip, approve, reject or abort; another value is kept with a warning',
  }),
  created_at: dateTime,
  expires_at: dateTime,
  context: z.looseObject({ form: form.optional() }).optional(),
  reminder_at: z.union([dateTime, z.array(dateTime).max(50)]).optional(),
  previous_case_id: caseId.optional(),
  surface: z.looseObject({}).optional(),
  submit_url: url.optional(),
  submit_token: z.string().min(1).max(4096).optional().meta({
    description: 'Under 32 characters (the spec minimum) the card is link-only, with a warning.',
  }),
  inline_actions: z.array(z.string().min(1).max(64)).max(25).optional(),
  verification_policy: z
    .looseObject({
      mode: z.string().optional(),
      required_for: z.array(z.string()).optional(),
    })
    .optional(),
};

export const hitlObjectSchema = z
  .looseObject(hitlShape)
  .meta({
    description:
      "A HITL Protocol `hitl` object (spec section 6); unknown fields are kept. See the protocol's hitl-object.schema.json.",
  })
  .superRefine((h, ctx) => {
    if (h.submit_url && !h.submit_token)
      ctx.addIssue({
        code: 'custom',
        path: ['submit_token'],
        message: 'is required when submit_url is present',
      });
    if (h.submit_token && !h.submit_url)
      ctx.addIssue({
        code: 'custom',
        path: ['submit_url'],
        message: 'is required when submit_token is present',
      });
    if (h.submit_token && h.submit_token.length >= 32 && h.review_url.includes(h.submit_token))
      ctx.addIssue({
        code: 'custom',
        path: ['submit_token'],
        message: 'must differ from the review URL token',
      });
  });

/** A validated `hitl` object (spec section 6 fields; unknown extra fields are kept). */
// Inferred from the declared fields (the extra fields a loose object keeps are not part of the type).
export type HitlObject = z.output<z.ZodObject<typeof hitlShape>>;

/** The result of parsing: the object plus warnings (e.g. a newer spec version). */
export interface ParsedHitl {
  hitl: HitlObject;
  /** The body's `message`, when a whole 202 body was given. */
  message: string | undefined;
  warnings: string[];
}

const bodySchema = z.looseObject({
  status: z.literal('human_input_required', { error: 'must be "human_input_required"' }),
  message: z.string().max(2000).optional(),
  hitl: z.unknown(),
});

/**
 * Parses a whole 202 body (`{status, message, hitl}`). `path` prefixes error paths, so the API can
 * report "response.hitl.poll_url".
 */
export function parse202Body(body: unknown, path = ''): ParsedHitl {
  const outer = bodySchema.safeParse(body);
  if (!outer.success)
    throw new ValidationError('invalid_hitl', 'not a HITL 202 body', toIssues(outer.error, path));
  if (outer.data.hitl === undefined)
    throw new ValidationError('invalid_hitl', 'not a HITL 202 body', [
      {
        path: join(path, 'hitl'),
        message: 'is required (a 202 without hitl is plain async, not a review)',
      },
    ]);
  const parsed = parseHitl(outer.data.hitl, join(path, 'hitl'));
  return { ...parsed, message: outer.data.message };
}

/** Parses a bare `hitl` object. */
export function parseHitl(value: unknown, path = 'hitl'): ParsedHitl {
  const result = hitlObjectSchema.safeParse(value);
  if (!result.success)
    throw new ValidationError('invalid_hitl', 'invalid hitl object', toIssues(result.error, path));
  const hitl: HitlObject = result.data;
  const warnings: string[] = [];
  const issues: ValidationIssue[] = [];
  const v = versionWarning(hitl.spec_version);
  if (v) {
    warnings.push(v);
    // Not interpreted: nothing can be submitted for it, whatever it says about submits.
    delete hitl.submit_token;
    delete hitl.submit_url;
  }
  if (
    !(REVIEW_TYPES as readonly string[]).includes(hitl.type) &&
    !/^x-[A-Za-z0-9_.-]+$/.test(hitl.type)
  )
    warnings.push(`unknown type "${hitl.type.slice(0, 64)}": shown as a link-only card`);
  if (hitl.default_action && !DEFAULT_ACTIONS.has(hitl.default_action))
    warnings.push(`unknown default_action "${hitl.default_action.slice(0, 64)}": shown as it is`);
  if (hitl.prompt.length > PROMPT_MAX) {
    warnings.push(`prompt over ${PROMPT_MAX} characters: cut on the card`);
    hitl.prompt = `${Array.from(hitl.prompt)
      .slice(0, PROMPT_MAX - 1)
      .join('')}…`;
  }
  if (hitl.submit_token && hitl.submit_token.length < SUBMIT_TOKEN_MIN) {
    // Spec 7.5: at least 32 characters of entropy. A shorter token is not guessed at: link only.
    warnings.push(
      `submit_token shorter than ${SUBMIT_TOKEN_MIN} characters: inline buttons off, Details only`,
    );
    delete hitl.submit_token;
    delete hitl.submit_url;
  }
  if (Date.parse(hitl.expires_at) <= Date.parse(hitl.created_at))
    issues.push({ path: join(path, 'expires_at'), message: 'must be after created_at' });
  if (issues.length) throw new ValidationError('invalid_hitl', 'invalid hitl object', issues);
  return { hitl, message: undefined, warnings };
}

/** The spec's prompt limit (section 6). */
const PROMPT_MAX = 500;
/** The spec's least submit_token length (section 7.5). */
const SUBMIT_TOKEN_MIN = 32;
const DEFAULT_ACTIONS = new Set(['skip', 'approve', 'reject', 'abort']);

/** The known version `version` is (0.5 to 0.9, patch levels such as "0.7.0" included), or null. */
export function knownVersion(version: string): (typeof KNOWN_SPEC_VERSIONS)[number] | null {
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(version);
  if (m === null) return null;
  const minor = `${Number(m[1])}.${Number(m[2])}`;
  return KNOWN_SPEC_VERSIONS.find((v) => v === minor) ?? null;
}

/** Whether `version` is one the relay knows: 0.5 to 0.9, patch levels ("0.7.0") included. */
export function isKnownVersion(version: string): boolean {
  return knownVersion(version) !== null;
}

/**
 * The warning for a spec_version the relay does not know, or null for 0.5-0.9. v0.9 §2: an
 * unknown version is not silently read as a known one, so such a case is not interpreted: its
 * card is link-only (Details, no buttons) and nothing is ever submitted (parseHitl drops the
 * submit credentials).
 */
export function versionWarning(version: string): string | null {
  if (isKnownVersion(version)) return null;
  return `spec_version "${version.slice(0, 32)}" is not a HITL Protocol version hitl-relay knows (${KNOWN_SPEC_VERSIONS[0]}-${KNOWN_SPEC_VERSIONS.at(-1)}): not interpreted; link-only card (Details only, no buttons, nothing submitted)`;
}

/** True when a response looks like a HITL 202 (status 202 and a `hitl` object): the catch rule of spec section 6. */
export function isHitlResponse(status: number, body: unknown): boolean {
  return (
    status === 202 &&
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { hitl?: unknown }).hitl === 'object' &&
    (body as { hitl?: unknown }).hitl !== null
  );
}

function join(prefix: string, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}
