/**
 * Discord modals with radio groups, checkboxes and selects (Label-wrapped components): what the
 * adapter draws per field, that the fake Discord accepts exactly that and refuses what Discord
 * refuses (component limits), and that a MODAL_SUBMIT as Discord sends it reads back as the typed
 * answer. Pure: no sockets.
 */
import { expect, it } from 'vitest';
import { askModal, modalAnswer } from '../../../platforms/discord/ask-modal.ts';
import { modalValues } from '../../../platforms/discord/modal-fields.ts';
import { type AskContent, parseAskContent } from '../../../src/asks/content.ts';
import { modalProblem } from '../../fakes/discord-modal-rules.ts';

const values = (n: number, len = 4) =>
  Array.from({ length: n }, (_, i) => `v${i}`.padEnd(len, 'x'));
function parsed(raw: Record<string, unknown>): AskContent {
  const r = parseAskContent(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.content;
}
const form = (fields: Array<Record<string, unknown>>) =>
  parsed({ type: 'context', sub_type: 'form', prompt: 'Fill in', fields });
const dropdown = (options: string[], required = true) =>
  form([{ key: 'pick', label: 'Pick', type: 'DROPDOWN', required, options }]);

it('MODAL-FIELDS-1: a DROPDOWN of 2-10 values is a radio group, 11-25 a select, more typed', () => {
  const kinds = [2, 10, 11, 25, 26].map((n) => {
    const modal = askModal('k1', dropdown(values(n)))!;
    expect(modalProblem(modal as never)).toBeNull();
    return modal.components[0]!.component.type;
  });
  expect(kinds).toEqual([21, 21, 3, 3, 4]);
  // A value over 100 characters cannot be an option (values are never cut): typed instead.
  const long = askModal('k1', dropdown(['short', 'x'.repeat(101)]))!;
  expect(long.components[0]!.component.type).toBe(4);
});

it('MODAL-FIELDS-2: yes/no is a radio group without a value, a checkbox with one', () => {
  const asked = askModal('k2', form([{ key: 'ok', label: 'OK?', type: 'BOOLEAN' }]))!;
  expect(asked.components[0]).toMatchObject({
    type: 18,
    label: 'OK?',
    component: { type: 21, custom_id: 'ok', required: false },
  });
  const args = parsed({
    type: 'edit',
    sub_type: 'tool_args',
    prompt: 'Args',
    tool_name: 't',
    args: [{ key: 'dry', label: 'Dry run', value: true, type: 'BOOLEAN' }],
  });
  const modal = askModal('k3', args)!;
  expect(modal.components[0]!.component).toEqual({ type: 23, custom_id: 'dry', default: true });
  expect(modalProblem(modal as never)).toBeNull();
  // Unticked is the changed value; left ticked is unchanged and left out.
  const submit = (value: boolean) =>
    modalAnswer(
      args,
      modalValues([{ type: 18, id: 1, component: { type: 23, id: 2, custom_id: 'dry', value } }]),
    );
  expect(submit(false)?.data).toEqual({ args: { dry: false } });
  expect(submit(true)?.data).toEqual({ args: {} });
});

it('MODAL-FIELDS-3: a submit as Discord sends it is the typed answer', () => {
  const c = form([
    { key: 'n', label: 'N', type: 'NUMBER', required: true },
    { key: 'urgent', label: 'Urgent?', type: 'BOOLEAN', required: true },
    { key: 'team', label: 'Team', type: 'DROPDOWN', required: true, options: ['a', 'b'] },
    { key: 'big', label: 'Big', type: 'DROPDOWN', options: values(12) },
    { key: 'note', label: 'Note', type: 'STRING' },
  ]);
  const raw = modalValues([
    { type: 18, component: { type: 4, custom_id: 'n', value: '3' } },
    { type: 18, component: { type: 21, custom_id: 'urgent', value: 'no' } },
    { type: 18, component: { type: 21, custom_id: 'team', value: 'b' } },
    { type: 18, component: { type: 3, custom_id: 'big', values: [] } },
    { type: 1, components: [{ type: 4, custom_id: 'note', value: '' }] },
  ]);
  expect(modalAnswer(c, raw)?.data).toEqual({ values: { n: 3, urgent: false, team: 'b' } });
});

it('MODAL-FIELDS-4: the fake refuses what Discord refuses in a modal', () => {
  const label = (component: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    custom_id: 'm',
    title: 'T',
    components: [{ type: 18, label: 'L', component: { custom_id: 'c', ...component }, ...extra }],
  });
  const opts = (n: number) => values(n).map((v) => ({ label: v, value: v }));
  const refused = [
    label({ type: 21, options: opts(1) }),
    label({ type: 21, options: opts(11) }),
    label({ type: 21, options: opts(3).map((o) => ({ ...o, default: true })) }),
    label({ type: 22, options: opts(11) }),
    label({ type: 22, options: opts(3), max_values: 11 }),
    label({ type: 3, options: opts(26) }),
    label({ type: 23, default: 'yes' }),
    label({ type: 2, style: 1, label: 'button' }),
    label({ type: 4, style: 3 }),
    label({ type: 21, options: [...opts(2), opts(1)[0]] }),
    label({ type: 21, options: opts(2) }, { label: 'x'.repeat(46) }),
    label({ type: 21, options: opts(2) }, { description: 'x'.repeat(101) }),
    { ...label({ type: 23 }), components: Array(6).fill(label({ type: 23 }).components[0]) },
    { ...label({ type: 23 }), components: Array(2).fill(label({ type: 23 }).components[0]) },
  ];
  for (const m of refused) expect(modalProblem(m), JSON.stringify(m)).not.toBeNull();
  for (const ok of [
    label({ type: 21, options: opts(10) }),
    label({ type: 22, options: opts(10), min_values: 0, max_values: 10 }),
    label({ type: 23, default: true }),
    label({ type: 4, style: 1 }),
  ])
    expect(modalProblem(ok)).toBeNull();
});
