/**
 * Discord's rules for a MODAL interaction response (type 9), as the API refuses them (400, Invalid
 * Form Body): custom_id 1-100, title 1-45, 1-5 top-level components, each a Label (18: label
 * 1-45, description <= 100, one component) or the older action row (1) of one text input with
 * its own label. Inside a Label: text input (4), string select (3, 1-25 options, min 0-25,
 * max 1-25), radio group (21, 2-10 options), checkbox group (22, 1-10 options, min 0-10, max
 * 1-10), checkbox (23, boolean default). Option label and value 1-100, values unique, at most one
 * default in a radio group.
 */

type Obj = Record<string, unknown>;

const str = (v: unknown, min: number, max: number) =>
  typeof v === 'string' && v.length >= min && v.length <= max;
const optStr = (v: unknown, max: number) => v === undefined || str(v, 0, max);
const optInt = (v: unknown, min: number, max: number) =>
  v === undefined || (Number.isInteger(v) && (v as number) >= min && (v as number) <= max);
const optBool = (v: unknown) => v === undefined || typeof v === 'boolean';

function optionsProblem(o: Obj, min: number, max: number): string | null {
  const list = Array.isArray(o.options) ? (o.options as Obj[]) : null;
  if (!list || list.length < min || list.length > max) return `options: ${min}-${max}`;
  const values = new Set<unknown>();
  for (const x of list) {
    if (!str(x.label, 1, 100) || !str(x.value, 1, 100)) return 'option label/value';
    if (!optStr(x.description, 100) || !optBool(x.default)) return 'option description/default';
    values.add(x.value);
  }
  if (values.size !== list.length) return 'option values not unique';
  return null;
}

function textInputProblem(i: Obj, inLabel: boolean): string | null {
  if (i.style !== 1 && i.style !== 2) return 'text input style';
  // In a Label the label is the Label's; the older action row needs its own.
  if (!inLabel && !str(i.label, 1, 45)) return 'label';
  if (!optStr(i.value, 4000) || !optStr(i.placeholder, 100)) return 'value/placeholder';
  if (!optInt(i.max_length, 1, 4000) || !optBool(i.required)) return 'max_length/required';
  return null;
}

/** The problem with one component inside a Label, or null. */
function labelledProblem(c: Obj): string | null {
  if (!str(c.custom_id, 1, 100)) return 'custom_id';
  switch (c.type) {
    case 4:
      return textInputProblem(c, true);
    case 3:
      if (!optInt(c.min_values, 0, 25) || !optInt(c.max_values, 1, 25)) return 'min/max';
      return optionsProblem(c, 1, 25);
    case 21: {
      const p = optionsProblem(c, 2, 10) ?? (optBool(c.required) ? null : 'required');
      const defaults = ((c.options as Obj[] | undefined) ?? []).filter((x) => x.default).length;
      return p ?? (defaults > 1 ? 'radio group: more than one default' : null);
    }
    case 22:
      if (!optInt(c.min_values, 0, 10) || !optInt(c.max_values, 1, 10)) return 'min/max';
      return optionsProblem(c, 1, 10);
    case 23:
      return optBool(c.default) ? null : 'checkbox default';
    default:
      return `component type ${String(c.type)} not allowed in a Label`;
  }
}

/** Why Discord would refuse this modal, or null when it accepts it. */
export function modalProblem(data: Obj | undefined): string | null {
  const d = (data ?? {}) as Obj;
  if (!str(d.custom_id, 1, 100)) return 'custom_id';
  if (!str(d.title, 1, 45)) return 'title';
  const top = Array.isArray(d.components) ? (d.components as Obj[]) : [];
  if (top.length < 1 || top.length > 5) return 'components: 1-5';
  const ids = new Set<unknown>();
  for (const t of top) {
    let inner: Obj;
    if (t.type === 18) {
      if (!str(t.label, 1, 45) || !optStr(t.description, 100)) return 'Label label/description';
      inner = (t.component ?? {}) as Obj;
      const p = labelledProblem(inner);
      if (p) return p;
    } else if (t.type === 1) {
      const row = Array.isArray(t.components) ? (t.components as Obj[]) : [];
      if (row.length !== 1 || row[0]?.type !== 4) return 'row: one text input';
      inner = row[0];
      const p = str(inner.custom_id, 1, 100) ? textInputProblem(inner, false) : 'custom_id';
      if (p) return p;
    } else return `top-level type ${String(t.type)}`;
    if (ids.has(inner.custom_id)) return 'custom_id not unique';
    ids.add(inner.custom_id);
  }
  return null;
}
