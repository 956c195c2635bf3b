/** Generators for property tests: hostile JSON values and mutations of real protocol documents. */
import fc from 'fast-check';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Strings a hostile peer would try: empty, huge, control characters, lookalike URLs, bad dates. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u202e',
    'x'.repeat(5000),
    'https://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/status',
    'https://[::ffff:127.0.0.1]/',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'https://user:pass@service.example/x',
    '../../../etc/passwd',
    '2026-02-30T25:61:00Z',
    '0.8',
    '9.9',
    'review_ok_123',
    'approve',
    'completed',
    '<script>alert(1)</script>',
    '{{#x}}{{/x}}',
    '__proto__',
  ),
);

/** Object keys a hostile peer would try, including the ones that reach prototypes. */
export const nastyKey: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hitl', 'status', 'case_id'),
);

/** Any JSON value, with nasty strings and keys mixed in. */
export const hostileJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(-0, 1e308, -1e308, 2 ** 53 + 1),
    nastyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(nastyKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** One edit of a document: set or delete the value at a path, or add a key. */
export interface Mutation {
  pick: number;
  op: 'set' | 'delete' | 'add' | 'stringify';
  key: string;
  value: Json;
}

/** Mutations of a document. */
export const mutations: fc.Arbitrary<Mutation[]> = fc.array(
  fc.record({
    pick: fc.nat(),
    op: fc.constantFrom('set', 'delete', 'add', 'stringify'),
    key: nastyKey,
    value: hostileJson,
  }),
  { minLength: 1, maxLength: 4 },
);

function containers(v: Json, out: Array<{ parent: any; key: string | number }> = []) {
  if (Array.isArray(v))
    for (const [i, x] of v.entries()) {
      out.push({ parent: v, key: i });
      containers(x, out);
    }
  else if (v && typeof v === 'object')
    for (const k of Object.keys(v)) {
      out.push({ parent: v, key: k });
      containers(v[k]!, out);
    }
  return out;
}

/** Applies `ms` to a deep copy of `doc` (the copy goes through JSON, as a wire body would). */
export function mutate(doc: Json, ms: Mutation[]): Json {
  const copy = JSON.parse(JSON.stringify(doc)) as Json;
  for (const m of ms) {
    const spots = containers(copy);
    if (!spots.length) continue;
    const { parent, key } = spots[m.pick % spots.length]!;
    if (m.op === 'set') parent[key] = m.value;
    else if (m.op === 'stringify') parent[key] = JSON.stringify(parent[key]);
    else if (m.op === 'delete')
      Array.isArray(parent) ? parent.splice(key as number, 1) : delete parent[key];
    else if (parent[key] && typeof parent[key] === 'object' && !Array.isArray(parent[key]))
      Object.defineProperty(parent[key], m.key, {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  // Round-trip so "__proto__" set as an own property travels as the JSON key it would be.
  return JSON.parse(JSON.stringify(copy));
}
