/** The official HITL Protocol examples and schemas, read from ../shared (never copied into the project). */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ajv and ajv-formats are CommonJS with `exports.default`; require() gives their real shapes.
const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020.js')).default;
const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;

/**
 * Where the protocol repository lies: HITL_PROTOCOL_DIR, else ../shared/hitl-protocol beside the
 * checkout (found from this file, so the working directory does not matter).
 */
export const PROTOCOL_DIR =
  process.env.HITL_PROTOCOL_DIR ??
  fileURLToPath(new URL('../../../shared/hitl-protocol', import.meta.url));

/** Every 202 body (with a hitl object) in the official examples. */
export function example202Bodies(): Array<{
  file: string;
  step: number;
  body: Record<string, any>;
}> {
  const dir = join(PROTOCOL_DIR, 'examples');
  const out: Array<{ file: string; step: number; body: Record<string, any> }> = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    for (const step of doc.steps ?? []) {
      const body = step.response?.body;
      if (step.response?.status === 202 && body?.hitl) out.push({ file, step: step.step, body });
    }
  }
  return out;
}

/** A validator for one schema file (with its sibling schemas registered for $ref). */
export function schemaValidator(name: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const dir = join(PROTOCOL_DIR, 'schemas');
  let wanted: string | undefined;
  // Schemas refer to each other by $id ("form-field.json" relative to .../v0.8/), so register them all.
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.schema.json'))) {
    const schema = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    ajv.addSchema(schema);
    if (f === name) wanted = schema.$id;
  }
  const validate = wanted ? ajv.getSchema(wanted) : undefined;
  if (!validate) throw new Error(`schema ${name} not found`);
  return validate;
}
