/**
 * Writes docs/configuration.md from the configuration schemas: every environment variable (the
 * core's and each platform's) and every RELAY_CONFIG key, with its type, default and meaning.
 * `npx tsx scripts/config-reference.ts` writes the page; test/docs/configuration.test.ts fails
 * when the page and the schemas disagree.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { CORE_ENV_VARS, configFileSchema, coreEnvSchema } from '../src/config/config.ts';
import type { EnvDoc } from '../src/config/env.ts';
import { CORE_ENV_DOCS, DEMO_SERVE_ENV_DOCS } from '../src/config/env-docs.ts';

type Schema = z.ZodType;
// zod 4 keeps what a schema is in `_zod.def`: its kind, its parts, its format and its checks.
type Def = Record<string, any> & { type: string };
const defOf = (s: Schema): Def => (s as any)._zod.def;

/** A schema's checks folded into one record: format, minimum, maximum, minimum length. */
function checksOf(s: Schema): Record<string, any> {
  const d = defOf(s);
  const out: Record<string, any> = { format: d.format };
  for (const c of (d.checks ?? []) as Array<{ _zod: { def: Record<string, any> } }>) {
    const cd = c._zod.def;
    if (cd.check === 'number_format') out.format = cd.format;
    if (cd.check === 'greater_than') out.minimum = cd.value;
    if (cd.check === 'less_than') out.maximum = cd.value;
    if (cd.check === 'min_length') out.minLength = cd.minimum;
    if (cd.check === 'string_format' && cd.format !== 'regex') out.format = cd.format;
  }
  return out;
}

/** The schema inside optional / default / pipe wrappers, and the default it carries. */
function unwrap(s: Schema): { inner: Schema; dflt?: unknown; optional: boolean } {
  let inner = s;
  let dflt: unknown;
  let optional = false;
  for (;;) {
    const d = defOf(inner);
    if (d.type === 'optional') optional = true;
    else if (d.type === 'default') dflt = d.defaultValue;
    else if (d.type === 'pipe') {
      inner = d.in;
      continue;
    } else return { inner, dflt, optional };
    inner = d.innerType;
  }
}

/** A schema's type in a few words: `integer 0-65535`, `` `0` \| `1` ``, `URL`, `list of string`. */
export function typeOf(s: Schema): string {
  const { inner } = unwrap(s);
  const d = defOf(inner);
  const bag = checksOf(inner);
  const range = (lo: unknown, hi: unknown, unit = '') =>
    lo !== undefined && hi !== undefined && Number.isFinite(lo) && Number.isFinite(hi)
      ? ` ${lo}-${hi}${unit}`
      : lo !== undefined && Number.isFinite(lo)
        ? ` ≥ ${lo}${unit}`
        : hi !== undefined && Number.isFinite(hi)
          ? ` ≤ ${hi}${unit}`
          : '';
  switch (d.type) {
    case 'number': {
      const int = bag.format === 'safeint' || bag.format === 'int32';
      return `${int ? 'integer' : 'number'}${range(bag.minimum, bag.maximum)}`;
    }
    case 'string':
      if (bag.format === 'url') return 'URL';
      if (bag.format === 'starts_with') return 'string (a path)';
      return bag.minLength ? `string, ${bag.minLength}+ characters` : 'string';
    case 'enum':
      return Object.values(d.entries as Record<string, string>)
        .map((v) => `\`${v}\``)
        .join(' \\| ');
    case 'boolean':
      return 'boolean';
    case 'array':
      return `list of ${typeOf(d.element)}`;
    case 'record':
      return `map of ${typeOf(d.valueType)}`;
    case 'object':
      return 'object';
    case 'union':
      return (d.options as Schema[]).map(typeOf).join(' or ');
    default:
      return d.type;
  }
}

const code = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

/** One table row per variable of `schema`, in the order of `names`. */
function envRows(schema: z.ZodObject, names: readonly string[], docs: Record<string, EnvDoc>) {
  return names.map((name) => {
    const field = schema.shape[name] as Schema | undefined;
    const doc = docs[name];
    if (!field) throw new Error(`${name} is read but not in its schema`);
    if (!doc) throw new Error(`${name} has no meaning: add it to its *_ENV_DOCS`);
    const { dflt } = unwrap(field);
    const shown = doc.default ?? (dflt === undefined || dflt === '' ? '—' : code(dflt));
    return `| \`${name}\` | ${typeOf(field)} | ${shown} | ${doc.meaning} |`;
  });
}

/** Each key of an object schema (records as `<name>`), depth first, with its dotted path. */
function fileRows(s: Schema, path: string, out: string[]): string[] {
  const { inner } = unwrap(s);
  const d = defOf(inner);
  if (d.type === 'record') return fileRows(d.valueType, `${path}.<name>`, out);
  if (d.type === 'array' && defOf(unwrap(d.element).inner).type === 'object')
    return fileRows(d.element, `${path}[]`, out);
  if (d.type !== 'object') return out;
  for (const [key, field] of Object.entries(d.shape as Record<string, Schema>)) {
    const at = path ? `${path}.${key}` : key;
    const { dflt, optional } = unwrap(field);
    const meaning = field.description;
    if (!meaning) throw new Error(`RELAY_CONFIG ${at} has no .describe() in its schema`);
    const shown =
      dflt !== undefined && !(typeof dflt === 'object' && !Array.isArray(dflt))
        ? code(dflt)
        : optional || dflt !== undefined
          ? '—'
          : 'required';
    out.push(`| \`${at}\` | ${typeOf(field)} | ${shown} | ${meaning} |`);
    fileRows(field, at, out);
  }
  return out;
}

interface PlatformEnv {
  name: string;
  vars: readonly string[];
  schema: z.ZodObject;
  docs: Record<string, EnvDoc>;
}

/** Each platform folder's variables, schema and meanings (`<NAME>_ENV_VARS`, `_SCHEMA`, `_DOCS`). */
async function platformEnvs(): Promise<PlatformEnv[]> {
  const root = fileURLToPath(new URL('../platforms/', import.meta.url));
  const out: PlatformEnv[] = [];
  for (const dir of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const mod: Record<string, unknown> = await import(`../platforms/${dir.name}/config.ts`);
    const prefix = Object.keys(mod)
      .find((k) => k.endsWith('_ENV_VARS'))
      ?.replace(/_ENV_VARS$/, '');
    const vars = (prefix && (mod[`${prefix}_ENV_VARS`] as string[])) || [];
    const own = vars.filter((v) => !(CORE_ENV_VARS as readonly string[]).includes(v));
    if (!own.length) continue;
    const schema = mod[`${prefix}_ENV_SCHEMA`] as z.ZodObject | undefined;
    const docs = mod[`${prefix}_ENV_DOCS`] as Record<string, EnvDoc> | undefined;
    if (!schema || !docs)
      throw new Error(`platforms/${dir.name}/config.ts: export ${prefix}_ENV_SCHEMA and _DOCS`);
    out.push({ name: dir.name, vars: own, schema, docs });
  }
  return out;
}

const HEAD = '| variable | type | default | meaning |\n| --- | --- | --- | --- |';

/** The whole page, as docs/configuration.md holds it. */
export async function renderConfigReference(): Promise<string> {
  const platforms = await platformEnvs();
  const parts = [
    '# Configuration reference',
    '<!-- Generated by scripts/config-reference.ts from the configuration schemas: do not edit. -->',
    'The relay reads environment variables and, when `RELAY_CONFIG` names one, a JSON file. Both are ' +
      'validated at start: a bad value stops the relay with one line naming the variable or the ' +
      'key. An empty variable counts as unset. Worked examples: ' +
      '[who may approve](who-may-approve.md), [four-eyes](four-eyes.md), ' +
      '[escalation](escalation.md), [public deploy](DEPLOY.md).',
    '## Environment variables',
    `${HEAD}\n${envRows(coreEnvSchema, CORE_ENV_VARS, CORE_ENV_DOCS).join('\n')}`,
    ...platforms.flatMap((p) => [
      `### ${p.name} ([guide](../platforms/${p.name}/README.md))`,
      `${HEAD}\n${envRows(p.schema, p.vars, p.docs).join('\n')}`,
    ]),
    '### The demo service run alone',
    'The relay mounts the demo at `/demo` (`DEMO`); `npx tsx src/demo/serve.ts` runs it on its own ' +
      '(as `docker-compose.yml` does) and reads only these:',
    `${HEAD}\n${Object.entries(DEMO_SERVE_ENV_DOCS)
      .map(([name, d]) => `| \`${name}\` | ${d.type} | ${d.default} | ${d.meaning} |`)
      .join('\n')}`,
    '## The RELAY_CONFIG file',
    'A JSON object with these keys (all optional); `<name>` stands for a name you choose.',
    `| key | type | default | meaning |\n| --- | --- | --- | --- |\n${fileRows(configFileSchema, '', []).join('\n')}`,
  ];
  return `${parts.join('\n\n')}\n`;
}

/** Tables as biome formats them, padding aside: what the page is compared by. */
export function normalizeMarkdown(text: string): string {
  return text.replace(/ {2,}/g, ' ').replace(/-{3,}/g, '---');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync('docs/configuration.md', await renderConfigReference());
  execFileSync('npx', ['biome', 'format', '--write', 'docs/configuration.md'], { stdio: 'ignore' });
  console.log('wrote docs/configuration.md');
}
