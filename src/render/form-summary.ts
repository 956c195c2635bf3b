/**
 * A service's form (`context.form`, spec 10.3.1-10.3.2) as a card may speak of it: how many fields,
 * how many required, and the step titles of a multi-step form (the agent checklist's "Forward form
 * metadata"). A field's label, value, default, placeholder or hint is never part of it: any of them
 * may be sensitive, and the review page is where they belong.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a card may say about a form. */
export interface FormSummary {
  /** Fields over all steps (conditional ones included: the page may show them). */
  fields: number;
  /** Fields marked `required: true`. */
  required: number;
  /** The steps' titles in order ('' for a step without one); empty for a single-step form. */
  steps: string[];
}

function stepsOf(form: Json): Json[] {
  return Array.isArray(form.steps) ? form.steps.filter(isObject) : [];
}

/** Every field object of a form, single-step (`fields`) or multi-step (`steps[].fields`). */
export function formFields(form: unknown): Json[] {
  if (!isObject(form)) return [];
  const top = Array.isArray(form.fields) ? form.fields : [];
  const inSteps = stepsOf(form).flatMap((step) => (Array.isArray(step.fields) ? step.fields : []));
  return [...top, ...inSteps].filter(isObject);
}

/** The summary of `context.form`, or undefined when there is no form or nothing to say of it. */
export function formSummary(form: unknown): FormSummary | undefined {
  if (!isObject(form)) return undefined;
  const fields = formFields(form);
  const steps = stepsOf(form).map((step) => (typeof step.title === 'string' ? step.title : ''));
  if (!fields.length && !steps.length) return undefined;
  return {
    fields: fields.length,
    required: fields.filter((f) => f.required === true).length,
    steps,
  };
}
