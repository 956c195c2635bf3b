/**
 * The official HITL Protocol examples and schemas, read from the corpus beside the checkout (never
 * copied into the project). Only a test tagged `corpus` may read them: vitest.config.ts skips those
 * tests when the corpus is missing, so a fresh clone's `npm test` passes without it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { getCurrentTest } from 'vitest/suite';
import { PROTOCOL_DIR } from './corpus-location.ts';

export { PROTOCOL_DIR };

// ajv and ajv-formats are CommonJS with `exports.default`; require() gives their real shapes.
const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020.js')).default;
const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;

/** The tag a test that reads the corpus carries: `it(name, { tags: [CORPUS] }, fn)`. */
export const CORPUS = 'corpus';

/** Refuses a read outside a test tagged `corpus` (it would fail on a clone without the corpus). */
function corpusPath(...parts: string[]): string {
  const test = getCurrentTest();
  if (!test?.tags?.includes(CORPUS))
    throw new Error(
      `${test ? `test "${test.name}"` : 'code outside a test'} reads the HITL Protocol corpus: ` +
        "read it inside a test tagged { tags: ['corpus'] } (skipped where the corpus is missing)",
    );
  return join(PROTOCOL_DIR, ...parts);
}

type Example = { file: string; step: number; body: Record<string, any> };
let examples: Example[] | undefined;

/** Every 202 body (with a hitl object) in the official examples. */
export function example202Bodies(): Example[] {
  const dir = corpusPath('examples');
  if (examples) return examples;
  const out: Example[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    for (const step of doc.steps ?? []) {
      const body = step.response?.body;
      if (step.response?.status === 202 && body?.hitl) out.push({ file, step: step.step, body });
    }
  }
  examples = out;
  return out;
}

type Ajv = InstanceType<typeof Ajv2020>;
let loaded: { ajv: Ajv; ids: Map<string, string> } | undefined;

/** One Ajv (draft 2020-12 + formats) holding every official schema, each registered for $ref. */
function schemas() {
  const dir = corpusPath('schemas');
  if (loaded) return loaded;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const ids = new Map<string, string>();
  // Schemas refer to each other by $id ("form-field.json" relative to .../v0.8/), so register them
  // all: schemas/ is v0.8 ("poll-response.schema.json"), schemas/v0.9/ is v0.9
  // ("v0.9/poll-response.schema.json"); their $ids differ, so both live in one Ajv.
  for (const folder of ['', 'v0.9'])
    for (const f of readdirSync(join(dir, folder)).filter((x) => x.endsWith('.schema.json'))) {
      const schema = JSON.parse(readFileSync(join(dir, folder, f), 'utf8'));
      ajv.addSchema(schema);
      ids.set(folder ? `${folder}/${f}` : f, schema.$id);
    }
  loaded = { ajv, ids };
  return loaded;
}

function compiled(name: string) {
  const { ajv, ids } = schemas();
  const id = ids.get(name);
  const validate = id ? ajv.getSchema(id) : undefined;
  if (!validate) throw new Error(`schema ${name} not found in ${PROTOCOL_DIR}/schemas`);
  return validate;
}

/** A validator for one schema file; the corpus is read at its first call (inside a test). */
export function schemaValidator(name: string) {
  const validate = (value: unknown): boolean => {
    const v = compiled(name);
    const ok = v(value) as boolean;
    validate.errors = v.errors;
    return ok;
  };
  validate.errors = undefined as ReturnType<typeof compiled>['errors'];
  return validate;
}

/** Validates `value` against an official schema file; returns Ajv's errors (empty when valid). */
export function schemaErrors(file: string, value: unknown): string[] {
  const validate = compiled(file);
  return validate(value)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}
