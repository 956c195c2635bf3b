/**
 * The ten interaction kinds an agent can ask the relay directly (hgateway SDK content model, seed 000):
 * four families, their elements and limits, as zod schemas. Wire names are the Python SDK's dataclass
 * field names (snake_case), so `dataclasses.asdict(content) | {"type": ..., "sub_type": ...}` parses.
 * Pure: no I/O.
 */
import { z } from 'zod';
import type { ValidationIssue } from '../errors.ts';
import { toIssues } from '../protocol/issues.ts';

/** Limits: everything from outside is bounded. */
export const ASK_LIMITS = {
  /** The relay's limit for a hitl prompt. */
  prompt: 500,
  label: 200,
  text: 500,
  statement: 4_000,
  draft: 20_000,
  /** A typed string value (form field, modifiable field, tool arg). */
  value: 4_000,
  choices: 10,
  options: 100,
  fields: 50,
  dropdown: 100,
  toolName: 128,
} as const;

/** The four families and their sub-types (HitlType / HitlSubType). */
export const ASK_KINDS = {
  approval: ['binary', 'modify'],
  decision: ['single', 'multi', 'rank'],
  context: ['freetext', 'form', 'confirm'],
  edit: ['content', 'tool_args'],
} as const;

/** "approval.binary", "decision.multi", ... */
export type AskKind = {
  [F in keyof typeof ASK_KINDS]: `${F}.${(typeof ASK_KINDS)[F][number]}`;
}[keyof typeof ASK_KINDS];

/** Every kind, in the seed's order. */
export const ALL_KINDS: readonly AskKind[] = Object.entries(ASK_KINDS).flatMap(([f, subs]) =>
  subs.map((s) => `${f}.${s}` as AskKind),
);

/** FieldType; the SDK's enum may serialise in either case, so both are read and upper case is kept. */
export const FIELD_TYPES = ['STRING', 'NUMBER', 'BOOLEAN', 'DATE', 'DROPDOWN'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

const KEY = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 _ . : -');
const LABEL = z.string().trim().min(1, 'must not be empty').max(ASK_LIMITS.label);
const TEXT = z.string().max(ASK_LIMITS.text);
/** `Optional[str] = None`: absent or null both mean "none". */
const optionalText = TEXT.nullish().transform((v) => v ?? undefined);
const fieldType = z.preprocess(
  (v) => (typeof v === 'string' ? v.toUpperCase() : v),
  z.enum(FIELD_TYPES, { message: `must be one of ${FIELD_TYPES.join(', ')}` }),
);

/** `YYYY-MM-DD` that is a real calendar day. */
export function isIsoDate(v: unknown): v is string {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

/** Why `value` is not a value of `type` (DROPDOWN: one of `options`), or null when it is. */
export function valueProblem(type: FieldType, value: unknown, options?: string[]): string | null {
  switch (type) {
    case 'STRING':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > ASK_LIMITS.value ? `at most ${ASK_LIMITS.value} characters` : null;
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'BOOLEAN':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'DATE':
      return isIsoDate(value) ? null : 'must be a date (YYYY-MM-DD)';
    case 'DROPDOWN':
      if (typeof value !== 'string') return 'must be one of the options';
      return options?.includes(value) ? null : `must be one of: ${(options ?? []).join(', ')}`;
  }
}

/** DROPDOWN's list of values to pick one from: strings, unique, bounded. */
const DROPDOWN_LIST = z
  .array(z.string().min(1).max(ASK_LIMITS.label))
  .min(1, 'a DROPDOWN needs at least one value')
  .max(ASK_LIMITS.dropdown)
  .refine((l) => new Set(l).size === l.length, 'the values must be unique');

/** A typed value: checked against its FieldType (DROPDOWN: the list of values). */
function checkTypedValue(
  o: { type: FieldType; value: unknown },
  ctx: z.core.$RefinementCtx,
  dropdownAllowed: boolean,
): void {
  if (o.type === 'DROPDOWN') {
    if (!dropdownAllowed) {
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'DROPDOWN is not allowed here' });
      return;
    }
    const r = DROPDOWN_LIST.safeParse(o.value);
    if (!r.success)
      for (const i of r.error.issues)
        ctx.addIssue({ code: 'custom', path: ['value', ...i.path], message: i.message });
    return;
  }
  const why = valueProblem(o.type, o.value);
  if (why) ctx.addIssue({ code: 'custom', path: ['value'], message: why });
}

/** Choice{key, label, irreversible=False, impact_hint=None}: an approval button. */
export const Choice = z.strictObject({
  key: KEY,
  label: LABEL,
  irreversible: z.boolean().default(false),
  impact_hint: optionalText,
});
export type Choice = z.output<typeof Choice>;

/** Option{key, label, description=None, irreversible=False, impact_hint=None}: a decision item. */
export const Option = z.strictObject({
  key: KEY,
  label: LABEL,
  description: optionalText,
  irreversible: z.boolean().default(false),
  impact_hint: optionalText,
});
export type Option = z.output<typeof Option>;

/** ModifiableField{key, label, value, type}: always editable; DROPDOWN's value is the list. */
export const ModifiableField = z
  .strictObject({ key: KEY, label: LABEL, value: z.unknown(), type: fieldType })
  .superRefine((o, ctx) => checkTypedValue(o, ctx, true));
export type ModifiableField = z.output<typeof ModifiableField>;

/**
 * FormField{key, label, type, required=False, placeholder=None}; DROPDOWN adds `options`, and
 * `sensitive` (a password, a token) keeps its answer from being shown back anywhere (ours both).
 */
export const FormField = z
  .strictObject({
    key: KEY,
    label: LABEL,
    type: fieldType,
    required: z.boolean().default(false),
    placeholder: optionalText,
    options: DROPDOWN_LIST.optional(),
    sensitive: z.boolean().optional(),
  })
  .superRefine((o, ctx) => {
    if (o.type === 'DROPDOWN' && !o.options)
      ctx.addIssue({
        code: 'custom',
        path: ['options'],
        message: 'a DROPDOWN field needs options (the values to pick one from)',
      });
    if (o.type !== 'DROPDOWN' && o.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'only a DROPDOWN has options' });
  });
export type FormField = z.output<typeof FormField>;

/** ToolArg{key, label, value, type, editable=True}: STRING, NUMBER, BOOLEAN or DATE. */
export const ToolArg = z
  .strictObject({
    key: KEY,
    label: LABEL,
    value: z.unknown(),
    type: fieldType,
    editable: z.boolean().default(true),
  })
  .superRefine((o, ctx) => checkTypedValue(o, ctx, false));
export type ToolArg = z.output<typeof ToolArg>;

/** FreetextInput{label, placeholder=None}. */
export const FreetextInput = z.strictObject({ label: LABEL, placeholder: optionalText });

function uniqueKeys<T extends { key: string }>(what: string) {
  return (list: T[], ctx: z.core.$RefinementCtx) => {
    const seen = new Set<string>();
    list.forEach((x, i) => {
      if (seen.has(x.key))
        ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `duplicate ${what} key` });
      seen.add(x.key);
    });
  };
}

const PROMPT = z.string().trim().min(1, 'must not be empty').max(ASK_LIMITS.prompt);
const DEFAULT_CHOICES: Choice[] = [
  { key: 'approve', label: 'Approve', irreversible: false, impact_hint: undefined },
  { key: 'reject', label: 'Reject', irreversible: false, impact_hint: undefined },
];
const choices = z
  .array(Choice)
  .min(1, 'populate at least one choice')
  .max(ASK_LIMITS.choices)
  .superRefine(uniqueKeys('choice'));
const options = (min: number) =>
  z
    .array(Option)
    .min(min, `populate at least ${min} option${min === 1 ? '' : 's'}`)
    .max(ASK_LIMITS.options)
    .superRefine(uniqueKeys('option'));
const head = <F extends string, S extends string>(family: F, sub: S) => ({
  type: z.literal(family),
  sub_type: z.literal(sub),
  prompt: PROMPT,
});

/** The ten content schemas, by kind. */
export const CONTENT_SCHEMAS = {
  'approval.binary': z.strictObject({
    ...head('approval', 'binary'),
    choices: choices.default(DEFAULT_CHOICES),
  }),
  'approval.modify': z.strictObject({
    ...head('approval', 'modify'),
    choices,
    modifiable: z.array(ModifiableField).max(ASK_LIMITS.fields).superRefine(uniqueKeys('field')),
  }),
  'decision.single': z.strictObject({ ...head('decision', 'single'), options: options(1) }),
  'decision.multi': z
    .strictObject({
      ...head('decision', 'multi'),
      options: options(1),
      min_select: z.number().int().min(0).default(1),
      max_select: z
        .number()
        .int()
        .min(1)
        .nullish()
        .transform((v) => v ?? null),
    })
    .superRefine((o, ctx) => {
      if (o.min_select > o.options.length)
        ctx.addIssue({
          code: 'custom',
          path: ['min_select'],
          message: `must not exceed the number of options (${o.options.length})`,
        });
      if (o.max_select !== null && o.max_select < o.min_select)
        ctx.addIssue({
          code: 'custom',
          path: ['max_select'],
          message: 'must not be below min_select',
        });
    }),
  'decision.rank': z.strictObject({ ...head('decision', 'rank'), options: options(2) }),
  'context.freetext': z.strictObject({
    ...head('context', 'freetext'),
    input: FreetextInput,
  }),
  'context.form': z.strictObject({
    ...head('context', 'form'),
    fields: z
      .array(FormField)
      .min(1, 'populate at least one field')
      .max(ASK_LIMITS.fields)
      .superRefine(uniqueKeys('field')),
  }),
  'context.confirm': z.strictObject({
    ...head('context', 'confirm'),
    statement: z.string().max(ASK_LIMITS.statement).default(''),
  }),
  'edit.content': z.strictObject({
    ...head('edit', 'content'),
    draft: z.string().max(ASK_LIMITS.draft).default(''),
  }),
  'edit.tool_args': z.strictObject({
    ...head('edit', 'tool_args'),
    tool_name: z.string().max(ASK_LIMITS.toolName).default(''),
    args: z
      .array(ToolArg)
      .min(1, 'populate at least one arg')
      .max(ASK_LIMITS.fields)
      .superRefine(uniqueKeys('arg')),
  }),
} as const;

/** The content of one kind, after validation (defaults filled in). */
export type ContentOf<K extends AskKind> = z.output<(typeof CONTENT_SCHEMAS)[K]>;
/** Any of the ten contents, after validation. */
export type AskContent = { [K in AskKind]: ContentOf<K> }[AskKind];
/** What an agent may send for a kind (defaults may be left out). */
export type AskContentInput<K extends AskKind = AskKind> = z.input<(typeof CONTENT_SCHEMAS)[K]>;

/** The kind of a validated content. */
export function kindOf(content: AskContent): AskKind {
  return `${content.type}.${content.sub_type}` as AskKind;
}

/** The result of parsing content. */
export type ParsedContent =
  | { ok: true; content: AskContent }
  | { ok: false; issues: ValidationIssue[] };

/**
 * Validates content from outside. `type` and `sub_type` are read case-insensitively (the SDK's
 * enums may serialise either way); every element is checked; issues carry JSON paths under `prefix`.
 */
export function parseAskContent(raw: unknown, prefix = 'content'): ParsedContent {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, issues: [{ path: prefix, message: 'must be an object' }] };
  const o = raw as Record<string, unknown>;
  const type = typeof o.type === 'string' ? o.type.toLowerCase() : undefined;
  const sub = typeof o.sub_type === 'string' ? o.sub_type.toLowerCase() : undefined;
  const kind = `${type}.${sub}` as AskKind;
  const schema = (CONTENT_SCHEMAS as Record<string, z.ZodType>)[kind];
  if (!schema) {
    const subs = type ? (ASK_KINDS as Record<string, readonly string[]>)[type] : undefined;
    return {
      ok: false,
      issues: [
        subs
          ? {
              path: `${prefix}.sub_type`,
              message: `a ${type} takes sub_type ${subs.join(', ')}`,
            }
          : {
              path: `${prefix}.type`,
              message: `must be one of ${Object.keys(ASK_KINDS).join(', ')}`,
            },
      ],
    };
  }
  const r = schema.safeParse({ ...o, type, sub_type: sub });
  if (!r.success) return { ok: false, issues: toIssues(r.error, prefix) };
  return { ok: true, content: r.data as AskContent };
}

/** The ask content a case carries in `context.ask` (the relay's own asks, or another relay's), if any. */
export function askContentOf(context: unknown): AskContent | undefined {
  const ask = (context as { ask?: unknown } | undefined)?.ask;
  if (ask === undefined) return undefined;
  const r = parseAskContent(ask);
  return r.ok ? r.content : undefined;
}

/** A typed value of a form field, modifiable field or tool arg. */
export type FieldValue = string | number | boolean;
