/**
 * The ids of an ask's inputs on Teams and what comes back under them: the values an
 * Action.Execute `data` (Action.Submit `value` on older clients) carries, turned back into the
 * ask's typed answer, and which input each problem of a refused answer belongs to. Pure: no I/O.
 */
import type { AskContent, FieldType } from '../../src/asks/content.ts';

/** Ids of ask inputs (and the decision field of choice buttons) start with this. */
export const TEAMS_ASK_PREFIX = 'hitl-ask.';

type Json = Record<string, unknown>;
const id = (tail: string) => `${TEAMS_ASK_PREFIX}${tail}`;

/** One type letter per FieldType in an input id: `hitl-ask.f.N.priority`. */
const LETTER: Record<FieldType, string> = {
  STRING: 'S',
  NUMBER: 'N',
  BOOLEAN: 'B',
  DATE: 'D',
  DROPDOWN: 'O',
};

/** The id of a typed field's input. */
export const fieldId = (group: 'f' | 'm' | 'a', type: FieldType, key: string) =>
  id(`${group}.${LETTER[type]}.${key}`);

/** Input id -> the first problem with it; the ask's general problems under `hitl-ask.` itself. */
export function errorsByInput(
  c: AskContent,
  issues: Array<{ path: string; message: string }>,
): Map<string, string> {
  const out = new Map<string, string>();
  const put = (k: string, m: string) => {
    if (!out.has(k)) out.set(k, m);
  };
  const typeOf = (list: Array<{ key: string; type: FieldType }>, key: string) =>
    list.find((x) => x.key === key)?.type;
  for (const i of issues) {
    const m = /^data\.(values|args)\.([^.]+)/.exec(i.path);
    if (m?.[2]) {
      const key = m[2];
      if (m[1] === 'args' && c.type === 'edit' && c.sub_type === 'tool_args') {
        const arg = c.args.find((a) => a.key === key);
        put(arg?.editable ? fieldId('a', arg.type, key) : id(`a.${key}`), i.message);
      } else if (c.type === 'context' && c.sub_type === 'form') {
        const t = typeOf(c.fields, key);
        if (t) put(fieldId('f', t, key), i.message);
      } else if (c.type === 'approval' && c.sub_type === 'modify') {
        const t = typeOf(c.modifiable, key);
        if (t) put(fieldId('m', t, key), i.message);
      }
      continue;
    }
    if (i.path.startsWith('data.selected'))
      put(id(c.type === 'decision' && c.sub_type === 'multi' ? 'many' : 'one'), i.message);
    else if (i.path.startsWith('data.ranking')) put(id('rank'), i.message);
    else if (i.path.startsWith('data.value')) put(id('value'), i.message);
    else if (i.path.startsWith('data.content')) put(id('content'), i.message);
  }
  return out;
}

/** The FieldType of an input id's type letter (`hitl-ask.f.N.priority`). */
const TYPE_OF: Record<string, FieldType> = {
  S: 'STRING',
  N: 'NUMBER',
  B: 'BOOLEAN',
  D: 'DATE',
  O: 'DROPDOWN',
};

/** An input value as its field type wants it; empty inputs are left out (undefined). */
function typedInput(type: FieldType, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  switch (type) {
    case 'STRING':
      return raw;
    case 'NUMBER': {
      if (raw.trim() === '') return undefined;
      const n = Number(raw);
      // A value that is not a number stays a string, so the check names the field.
      return Number.isFinite(n) ? n : raw;
    }
    case 'BOOLEAN':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    default:
      return raw === '' ? undefined : raw;
  }
}

/** The raw ask inputs of an Action.Execute `data` / Action.Submit `value` (id -> value). */
export function askInputs(data: unknown): Record<string, unknown> {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return {};
  return Object.fromEntries(
    Object.entries(data as Json).filter(([k]) => k.startsWith(TEAMS_ASK_PREFIX)),
  );
}

/**
 * The typed answer data in an Action.Execute `data` (or Action.Submit `value`): inputs turned back
 * into the ask's shapes by their ids; undefined when the card had no ask inputs (a plain button).
 */
export function askTapData(data: unknown): Record<string, unknown> | undefined {
  const inputs = askInputs(data);
  if (Object.keys(inputs).length === 0) return undefined;
  const out: Json = {};
  const ranking: Array<{ place: number; key: unknown }> = [];
  const groups: Record<'f' | 'm' | 'a', Json> = { f: {}, m: {}, a: {} };
  for (const [k, raw] of Object.entries(inputs)) {
    const tail = k.slice(TEAMS_ASK_PREFIX.length);
    const field = /^([fma])\.([SNBDO])\.(.+)$/.exec(tail);
    if (field) {
      const [, group, letter, key] = field as unknown as [string, 'f' | 'm' | 'a', string, string];
      const type = TYPE_OF[letter] as FieldType;
      const v = typedInput(type, raw);
      if (v !== undefined) groups[group][key] = v;
      continue;
    }
    const place = /^rank\.(\d{1,2})$/.exec(tail);
    if (place) {
      if (typeof raw === 'string' && raw !== '')
        ranking.push({ place: Number(place[1]), key: raw });
      continue;
    }
    if (tail === 'one') {
      if (typeof raw === 'string' && raw !== '') out.selected = raw;
    } else if (tail === 'many') {
      // A multi-select ChoiceSet sends "a,b,c" (option keys never hold a comma).
      out.selected = typeof raw === 'string' ? raw.split(',').filter((s) => s !== '') : raw;
    } else if (tail === 'value' || tail === 'content' || tail === 'decision') {
      out[tail] = raw;
    }
  }
  if (ranking.length || Object.keys(inputs).some((k) => k.startsWith(id('rank.'))))
    out.ranking = ranking.sort((a, b) => a.place - b.place).map((r) => r.key);
  if (Object.keys(groups.f).length || hasGroup(inputs, 'f')) out.values = groups.f;
  if (Object.keys(groups.m).length) out.values = groups.m;
  if (Object.keys(groups.a).length || hasGroup(inputs, 'a')) out.args = groups.a;
  return out;
}

function hasGroup(inputs: Record<string, unknown>, group: string): boolean {
  return Object.keys(inputs).some((k) => k.startsWith(id(`${group}.`)));
}
