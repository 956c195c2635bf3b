/**
 * The ask of an upstream's form-mode `elicitation/create`, and the way back: a flat
 * `requestedSchema` becomes the closest native kind (one boolean → context.confirm; one enum →
 * decision.single; one array of enum → decision.multi; anything else flat → context.form, each
 * field's format, bounds and default shown in its label and placeholder), and the person's typed
 * answer becomes the elicitation's `content`, checked against the schema before it goes back so
 * the server never receives what it did not ask for. Pure.
 */
import { ASK_LIMITS, type AskContentInput, type FieldType } from '../asks/content.ts';

/** One property of a requestedSchema (primitive, per the spec's PrimitiveSchemaDefinition). */
export type Prop = Record<string, unknown>;

/** How an answer maps back: which kind was asked, and the schema it answers. */
export type Mapping =
  | { kind: 'confirm'; name: string }
  | { kind: 'single'; name: string; values: string[] }
  | { kind: 'multi'; name: string; values: string[] }
  | { kind: 'form'; props: Record<string, Prop>; required: string[] };

/** The ask content and its mapping, or why the request cannot be asked. */
export type ElicitAsk =
  | { ok: true; content: AskContentInput; mapping: Mapping }
  | { ok: false; problem: string };

/** What a schema says about an elicitation request. */
export interface FormRequest {
  message: string;
  requestedSchema: { properties?: Record<string, Prop>; required?: string[] };
}

type EnumOption = { value: string; label: string };

/** The choices of a string enum (`enum` with optional `enumNames`, or `oneOf` const/title). */
function enumOf(p: Prop | undefined): EnumOption[] | null {
  if (!p) return null;
  const names = Array.isArray(p.enumNames) ? (p.enumNames as unknown[]) : [];
  if (Array.isArray(p.enum))
    return p.enum.map((v, i) => ({ value: String(v), label: String(names[i] ?? v) }));
  const one = (p.oneOf ?? p.anyOf) as Array<{ const?: unknown; title?: unknown }> | undefined;
  if (Array.isArray(one) && one.every((o) => o && typeof o.const === 'string'))
    return one.map((o) => ({ value: String(o.const), label: String(o.title ?? o.const) }));
  return null;
}

const OPTION_KEY = /^[A-Za-z0-9_.:-]{1,64}$/;
const optionKey = (value: string, i: number) =>
  OPTION_KEY.test(value) ? value : `option_${i + 1}`;
const titleOf = (name: string, p: Prop) => String(p.title ?? name).slice(0, 150);

function options(list: EnumOption[]) {
  return list.map((o, i) => ({ key: optionKey(o.value, i), label: o.label.slice(0, 200) }));
}

/** What a field's label adds: its format and bounds, in words. */
function constraints(p: Prop): string {
  const out: string[] = [];
  if (typeof p.format === 'string') out.push(p.format);
  if (p.type === 'integer') out.push('whole number');
  const lo = p.minimum ?? p.minLength;
  const hi = p.maximum ?? p.maxLength;
  const unit = p.type === 'string' ? ' characters' : '';
  if (lo !== undefined && hi !== undefined) out.push(`${lo}–${hi}${unit}`);
  else if (lo !== undefined) out.push(`at least ${lo}${unit}`);
  else if (hi !== undefined) out.push(`at most ${hi}${unit}`);
  return out.length ? ` (${out.join(', ')})` : '';
}

function fieldType(p: Prop): FieldType | null {
  if (enumOf(p) && p.type === 'string') return 'DROPDOWN';
  if (p.type === 'string') return p.format === 'date' ? 'DATE' : 'STRING';
  if (p.type === 'number' || p.type === 'integer') return 'NUMBER';
  if (p.type === 'boolean') return 'BOOLEAN';
  return null;
}

function formAsk(r: FormRequest, prompt: string): ElicitAsk {
  const props = r.requestedSchema.properties ?? {};
  const required = r.requestedSchema.required ?? [];
  const fields = [];
  for (const [name, p] of Object.entries(props)) {
    const type = fieldType(p);
    if (!type) return { ok: false, problem: `field ${name} is not a string, number or boolean` };
    if (!OPTION_KEY.test(name)) return { ok: false, problem: `field name ${name} cannot be a key` };
    const list = enumOf(p);
    fields.push({
      key: name,
      label: `${titleOf(name, p)}${constraints(p)}`.slice(0, ASK_LIMITS.label),
      type,
      required: required.includes(name),
      ...(p.default !== undefined && { placeholder: `default: ${String(p.default)}` }),
      ...(type === 'DROPDOWN' && list && { options: list.map((o) => o.value) }),
    });
  }
  if (!fields.length) return { ok: false, problem: 'its requestedSchema has no fields' };
  if (fields.length > ASK_LIMITS.fields)
    return {
      ok: false,
      problem: `it has ${fields.length} fields (a card shows ${ASK_LIMITS.fields})`,
    };
  return {
    ok: true,
    content: { type: 'context', sub_type: 'form', prompt, fields },
    mapping: { kind: 'form', props, required },
  };
}

/** The ask of a form-mode elicitation, for upstream `upstream`. */
export function elicitAsk(upstream: string, r: FormRequest): ElicitAsk {
  const prompt = `${upstream} asks: ${r.message}`.slice(0, ASK_LIMITS.prompt);
  const entries = Object.entries(r.requestedSchema.properties ?? {});
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only) {
    const [name, p] = only;
    if (p.type === 'boolean')
      return {
        ok: true,
        content: {
          type: 'context',
          sub_type: 'confirm',
          prompt,
          statement: `${titleOf(name, p)}${p.description ? `: ${String(p.description)}` : ''}`,
        },
        mapping: { kind: 'confirm', name },
      };
    const one = p.type === 'string' ? enumOf(p) : null;
    if (one)
      return {
        ok: true,
        content: { type: 'decision', sub_type: 'single', prompt, options: options(one) },
        mapping: { kind: 'single', name, values: one.map((o) => o.value) },
      };
    const many = p.type === 'array' ? enumOf(p.items as Prop | undefined) : null;
    if (many) {
      const min = typeof p.minItems === 'number' ? p.minItems : 0;
      return {
        ok: true,
        content: {
          type: 'decision',
          sub_type: 'multi',
          prompt,
          options: options(many),
          min_select: min,
          ...(typeof p.maxItems === 'number' && { max_select: p.maxItems }),
        },
        mapping: { kind: 'multi', name, values: many.map((o) => o.value) },
      };
    }
  }
  return formAsk(r, prompt);
}

/** The elicitation content of a person's answer (result.data), or why it does not fit the schema. */
export type Content =
  | { ok: true; content: Record<string, unknown> }
  | { ok: false; problem: string };

const valueOfKey = (m: { values: string[] }, key: unknown) =>
  m.values.find((v, i) => optionKey(v, i) === key);

/** The typed content of an answer to the ask `mapping` made. */
export function contentOf(m: Mapping, data: Record<string, unknown>): Content {
  if (m.kind === 'confirm') return { ok: true, content: { [m.name]: true } };
  if (m.kind === 'single') {
    const v = valueOfKey(m, data.selected);
    return v === undefined
      ? { ok: false, problem: 'the selected option is not one offered' }
      : { ok: true, content: { [m.name]: v } };
  }
  if (m.kind === 'multi') {
    const keys = Array.isArray(data.selected) ? data.selected : [];
    return { ok: true, content: { [m.name]: keys.map((k) => valueOfKey(m, k)) } };
  }
  const values = (data.values ?? {}) as Record<string, unknown>;
  const content: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(m.props)) {
    const given = values[name];
    const v = given === undefined || given === '' ? p.default : typed(p, given);
    if (v === undefined) {
      if (m.required.includes(name)) return { ok: false, problem: `${name} is required` };
      continue;
    }
    const problem = outOfBounds(name, p, v);
    if (problem) return { ok: false, problem };
    content[name] = v;
  }
  return { ok: true, content };
}

function typed(p: Prop, v: unknown): unknown {
  if ((p.type === 'number' || p.type === 'integer') && typeof v === 'string') return Number(v);
  if (p.type === 'boolean' && typeof v === 'string') return v === 'true';
  return v;
}

/** Why a value breaks its property's type or bounds, or null. */
function outOfBounds(name: string, p: Prop, v: unknown): string | null {
  const n = (k: string) => (typeof p[k] === 'number' ? (p[k] as number) : undefined);
  if (p.type === 'integer' && !Number.isInteger(v)) return `${name} must be a whole number`;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return `${name} must be a number`;
    if (n('minimum') !== undefined && v < (n('minimum') as number))
      return `${name} must be at least ${p.minimum}`;
    if (n('maximum') !== undefined && v > (n('maximum') as number))
      return `${name} must be at most ${p.maximum}`;
  }
  if (typeof v === 'string') {
    if (n('minLength') !== undefined && v.length < (n('minLength') as number))
      return `${name} must have at least ${p.minLength} characters`;
    if (n('maxLength') !== undefined && v.length > (n('maxLength') as number))
      return `${name} must have at most ${p.maxLength} characters`;
  }
  return null;
}
