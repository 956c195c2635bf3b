/**
 * The Discord row of the asks matrix: each of the ten kinds end to end against the fake REST API
 * and signed HTTP interactions. The native widget is in the message the fake received (buttons,
 * string selects, an "Answer…" button whose MODAL response the fake checks against Discord's
 * limits), the input arrives as Discord delivers it (MESSAGE_COMPONENT, MODAL_SUBMIT), invalid
 * answers are refused with an ephemeral reply and the case still pending, and the typed answer
 * comes back from /wait. Beyond the limits (> 5 fields, > 25 options) the card keeps the signed
 * review page.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, expectTypeOf, it } from 'vitest';
import type { AskKind } from '../../src/asks/content.ts';
import { RelayClient } from '../../src/client/index.ts';
import type { FakeDiscordMessage } from '../fakes/discord-api.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  signInteraction,
  TEST_DISCORD_CHANNEL_ID,
} from '../platforms/discord/harness.ts';
import { KINDS } from './fixtures.ts';

let h: DiscordHarness;
let relay: RelayHandle;
let clock = Date.now();
beforeAll(async () => {
  h = await makeDiscordHarnessWith();
  relay = await startRelay({ adapters: [h.adapter], now: () => clock });
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
});

const messages = () => h.fake.messages(TEST_DISCORD_CHANNEL_ID);
const components = (m: FakeDiscordMessage) =>
  m.components.flatMap((row) => row.components) as unknown as Array<Record<string, any>>;

async function ask(content: Record<string, unknown>) {
  const before = messages().length;
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: h.target, content }),
  });
  expect(res.statusCode).toBe(202);
  const id = ((await res.body.json()) as any).relay.id as string;
  await eventually(async () => messages().length > before, 10_000, 'the card');
  return { id, card: messages().at(-1)! };
}

/** Delivers an interaction built on `message`, edited by `shape`; the relay's HTTP answer. */
async function interact(
  message: FakeDiscordMessage,
  customId: string,
  shape: (i: Record<string, any>) => void,
): Promise<{ type: number; data?: any }> {
  const interaction = componentInteraction({ message, customId, user: h.users.allowed });
  shape(interaction);
  const id = interaction.id as string;
  const token = interaction.token as string;
  h.fake.registerInteraction({ id, token, channelId: message.channel_id, messageId: message.id });
  const body = JSON.stringify(interaction);
  const res = await fetch(`${relay.url}/discord/interactions`, {
    method: 'POST',
    headers: signInteraction(h.privateKey, body),
    body,
  });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { type: number; data?: any };
  expect(h.fake.applyInteractionResponse(id, token, answer).status).toBe(204);
  await h.adapter.drain();
  return answer;
}

const click = (m: FakeDiscordMessage, customId: string) => interact(m, customId, () => {});
const choose = (m: FakeDiscordMessage, customId: string, values: string[]) =>
  interact(m, customId, (i) => {
    i.data = { component_type: 3, custom_id: customId, values };
  });
type Modal = { custom_id: string; title: string; components: any[] };
/**
 * MODAL_SUBMIT of `modal` opened from `card` as Discord sends it: each Label with its component's
 * type and what the person entered (`value` for a text input, radio group or checkbox; `values`
 * for a select), by custom_id.
 */
const submitModal = (
  card: FakeDiscordMessage,
  modal: Modal,
  values: Record<string, string | boolean | null>,
) =>
  interact(card, modal.custom_id, (i) => {
    i.type = 5;
    i.data = {
      custom_id: modal.custom_id,
      components: modal.components.map((label, n) => {
        const { type, custom_id } = label.component;
        const v = values[custom_id];
        const entered = type === 3 || type === 22 ? { values: v == null ? [] : [v] } : { value: v };
        return { type: 18, id: n + 1, component: { type, id: n + 2, custom_id, ...entered } };
      }),
    };
  });

async function status(id: string): Promise<string> {
  const res = await request(`${relay.url}/v1/asks/${id}`);
  return ((await res.body.json()) as any).status;
}
async function answered(id: string, kind: AskKind) {
  const res = await request(`${relay.url}/v1/asks/${id}/wait?timeout=10`);
  expect(await res.body.json()).toMatchObject({
    kind,
    status: 'completed',
    answer: KINDS[kind].result,
  });
}
const content = (kind: AskKind) => KINDS[kind].content;
const EPHEMERAL = 64;

/** Opens the card's modal: the MODAL response (type 9) as the fake accepted it. */
async function openModal(card: FakeDiscordMessage) {
  const open = components(card).find((c) => /^hitl-ask:.*:open$/.test(c.custom_id ?? ''));
  expect(open).toBeTruthy();
  const answer = await click(card, open!.custom_id);
  expect(answer.type).toBe(9);
  return answer.data as Modal;
}
/** The modal's fields: each Label's component with the Label's text. */
const inputs = (modal: Modal) =>
  modal.components.map((l) => ({ ...l.component, label: l.label, top: l.type }));

it('approval.binary: Approve / Reject buttons; a forged action refused; approve', async () => {
  const { id, card } = await ask(content('approval.binary'));
  const ids = components(card)
    .map((c) => c.custom_id)
    .filter(Boolean);
  expect(ids.some((c) => c.endsWith(':approve'))).toBe(true);
  const key = ids[0].split(':')[1];
  await click(card, `hitl:${key}:edit`);
  expect(await status(id)).toBe('pending');
  await click(
    card,
    ids.find((c) => c.endsWith(':approve')),
  );
  await answered(id, 'approval.binary');
});

it('approval.modify: a modal prefilled; the DROPDOWN a radio group; a wrong number refused', async () => {
  const { id, card } = await ask(content('approval.modify'));
  const modal = await openModal(card);
  expect(inputs(modal).map((i) => [i.top, i.type, i.custom_id, i.value ?? null])).toEqual([
    [18, 4, 'amount', '75'],
    [18, 4, 'note', null],
    [18, 21, 'reason', null],
  ]);
  // A modifiable field is left as it is unless changed: the radio group may stay unpicked.
  expect(inputs(modal)[2]).toMatchObject({
    required: false,
    options: ['duplicate', 'fraud', 'other'].map((v) => ({ label: v, value: v })),
  });
  const bad = await submitModal(card, modal, { amount: 'x', note: '', reason: null });
  expect(bad).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
  // The person reads the field's label, never an internal path.
  expect(bad.data.content).toContain('Refund Amount (USD): ');
  // The problem is said once (not again as a bullet under the same words).
  expect(bad.data.content.split('Refund Amount (USD)')).toHaveLength(2);
  expect(bad.data.content).not.toContain('data.values');
  expect(await status(id)).toBe('pending');
  const ok = await submitModal(card, modal, { amount: '45', note: '', reason: null });
  expect(ok.type).toBe(7);
  await answered(id, 'approval.modify');
});

it('decision.single: a string select; a stale value refused; the choice', async () => {
  const { id, card } = await ask(content('decision.single'));
  const select = components(card).find((c) => c.type === 3)!;
  expect(select).toMatchObject({ min_values: 1, max_values: 1 });
  await choose(card, select.custom_id, ['qa']);
  expect(await status(id)).toBe('pending');
  await choose(card, select.custom_id, ['staging']);
  await answered(id, 'decision.single');
});

it('decision.multi: a string select with min/max; too many refused; the choice', async () => {
  const { id, card } = await ask(content('decision.multi'));
  const select = components(card).find((c) => c.type === 3)!;
  expect(select).toMatchObject({ min_values: 1, max_values: 2 });
  await choose(card, select.custom_id, ['infra', 'backend', 'frontend']);
  expect(await status(id)).toBe('pending');
  await choose(card, select.custom_id, ['backend', 'infra']);
  await answered(id, 'decision.multi');
});

it('decision.rank: successive selects in an ephemeral message; a forged repeat refused', async () => {
  const { id, card } = await ask(content('decision.rank'));
  const rank = components(card).find((c) => /:rank$/.test(c.custom_id ?? ''))!;
  const first = await click(card, rank.custom_id);
  expect(first).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
  const select1 = first.data.components[0].components[0];
  expect(select1.options.map((o: any) => o.label)).toEqual(['Email', 'SMS', 'Push Notification']);
  // The ephemeral message as Discord shows it (the select's interaction carries its id).
  const eph = { ...card, id: '1300000000000000001', components: first.data.components };
  const second = await choose(eph, select1.custom_id, ['2']);
  expect(second.type).toBe(7);
  expect(second.data.content).toContain('1. Push Notification');
  const select2 = second.data.components[0].components[0];
  expect(select2.options.map((o: any) => o.label)).toEqual(['Email', 'SMS']);
  // A forged custom_id that places Push twice: the ranking is refused, nothing recorded.
  const forged = await choose(eph, select2.custom_id.replace(/:2\.$/, ':2.2.'), ['0']);
  expect(forged.type).toBe(7);
  expect(forged.data.content).toContain('The ranking: ');
  expect(await status(id)).toBe('pending');
  const done = await choose(eph, select2.custom_id, ['0']);
  expect(done.data.content).toMatch(/recorded/);
  await answered(id, 'decision.rank');
});

it('context.freetext: a paragraph input; a blank answer refused; the text', async () => {
  const { id, card } = await ask(content('context.freetext'));
  const modal = await openModal(card);
  expect(inputs(modal)).toMatchObject([
    { custom_id: 'value', style: 2, required: true, placeholder: 'Describe in a few sentences…' },
  ]);
  const blank = await submitModal(card, modal, { value: '   ' });
  expect(blank).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
  expect(await status(id)).toBe('pending');
  await submitModal(card, modal, { value: 'A full refund.' });
  await answered(id, 'context.freetext');
});

it('context.form: five fields, yes/no and DROPDOWN as radio groups; a bad date refused', async () => {
  const { id, card } = await ask(content('context.form'));
  const modal = await openModal(card);
  expect(inputs(modal).map((i) => [i.type, i.custom_id, i.required, i.placeholder])).toEqual([
    [4, 'ticket_id', true, 'e.g. TKT-001'],
    [4, 'priority', false, 'a number'],
    [21, 'is_urgent', false, undefined],
    [4, 'due', false, 'YYYY-MM-DD'],
    [21, 'team', true, undefined],
  ]);
  expect(inputs(modal)[2].options.map((o: any) => o.value)).toEqual(['yes', 'no']);
  expect(inputs(modal)[4].options.map((o: any) => o.value)).toEqual(['infra', 'backend']);
  const values = {
    ticket_id: 'TKT-123',
    priority: '2',
    is_urgent: 'yes',
    due: '2026-02-30',
    team: 'infra',
  };
  const bad = await submitModal(card, modal, values);
  expect(bad.data.content).toContain('Due date: ');
  // A forged radio value (Discord sends only its options) is refused like a typed one.
  const wrongTeam = await submitModal(card, modal, {
    ...values,
    due: '2026-12-01',
    team: 'sales',
  });
  expect(wrongTeam.data.content).toContain('Team: ');
  expect(await status(id)).toBe('pending');
  await submitModal(card, modal, { ...values, due: '2026-12-01' });
  await answered(id, 'context.form');
});

it('context.confirm: Confirm / Cancel buttons; a forged action refused; Confirm twice', async () => {
  const { id, card } = await ask(content('context.confirm'));
  const confirm = components(card).find((c) => /:confirm$/.test(c.custom_id ?? ''))!;
  const key = confirm.custom_id.split(':')[1];
  await click(card, `hitl:${key}:approve`);
  expect(await status(id)).toBe('pending');
  await click(card, confirm.custom_id);
  clock += 2_000;
  await click(card, confirm.custom_id);
  await answered(id, 'context.confirm');
});

it('edit.content: the draft prefilled in a paragraph input; blank refused; the new version', async () => {
  const { id, card } = await ask(content('edit.content'));
  const modal = await openModal(card);
  expect(inputs(modal)).toMatchObject([
    { custom_id: 'content', style: 2, value: (content('edit.content') as any).draft },
  ]);
  const blank = await submitModal(card, modal, { content: ' ' });
  expect(blank.data.content).toContain('The text: ');
  expect(await status(id)).toBe('pending');
  await submitModal(card, modal, {
    content: 'Hi Jane,\n\nThank you!\n\nBest, Support',
  });
  await answered(id, 'edit.content');
});

it('edit.tool_args: editable args prefilled, a yes/no arg a checkbox; a wrong type refused', async () => {
  const { id, card } = await ask(content('edit.tool_args'));
  const modal = await openModal(card);
  expect(inputs(modal).map((i) => [i.type, i.custom_id, i.value ?? i.default])).toEqual([
    [4, 'limit', '1000'],
    [23, 'dry_run', false],
  ]);
  const bad = await submitModal(card, modal, { limit: 'many', dry_run: false });
  expect(bad.data.content).toContain('Row Limit: ');
  expect(await status(id)).toBe('pending');
  await submitModal(card, modal, { limit: '500', dry_run: false });
  await answered(id, 'edit.tool_args');
});

it('fallbacks: > 5 form fields and > 25 rank options keep only the review page', async () => {
  const fields = Array.from({ length: 6 }, (_, i) => ({
    key: `f${i}`,
    label: `Field ${i}`,
    type: 'STRING',
  }));
  const options = Array.from({ length: 26 }, (_, i) => ({ key: `o${i}`, label: `Option ${i}` }));
  for (const c of [
    { type: 'context', sub_type: 'form', prompt: 'Many fields', fields },
    { type: 'decision', sub_type: 'rank', prompt: 'Many options', options },
  ]) {
    const { card } = await ask(c);
    const all = components(card);
    expect(all.some((x) => /^hitl-ask:/.test(x.custom_id ?? ''))).toBe(false);
    expect(all.some((x) => x.style === 5 && typeof x.url === 'string')).toBe(true);
  }
});

it('the TypeScript client: relay.ask() gets the freetext typed, answered in a Discord modal', async () => {
  const client = new RelayClient({ relayUrl: relay.url, waitChunkSeconds: 5 });
  const before = messages().length;
  const asked = client.ask(
    {
      type: 'context',
      sub_type: 'freetext',
      prompt: 'Why?',
      input: { label: 'Reason' },
    },
    { target: h.target, timeoutMs: 15_000 },
  );
  await eventually(async () => messages().length > before, 10_000, 'the card');
  const card = messages().at(-1)!;
  const modal = await openModal(card);
  await submitModal(card, modal, { value: 'Because.' });
  const out = await asked;
  expectTypeOf(out.answer).toEqualTypeOf<{ value: string } | null>();
  expect(out).toMatchObject({ kind: 'context.freetext', status: 'completed' });
  expect(out.answer?.value).toBe('Because.');
});

it('approval.binary with its own choice keys: one button per choice; a forged one refused', async () => {
  const { id, card } = await ask({
    type: 'approval',
    sub_type: 'binary',
    prompt: 'Ship the release?',
    choices: [
      { key: 'ship', label: 'Ship it' },
      { key: 'hold', label: 'Hold', irreversible: true },
    ],
  });
  const choices = components(card).filter((c) => /^hitl-ask:.*:c\d$/.test(c.custom_id ?? ''));
  expect(choices.map((c) => c.label)).toEqual(['Ship it', '⚠️ Hold']);
  const key = choices[0]!.custom_id.split(':')[1];
  const forged = await click(card, `hitl-ask:${key}:c7`);
  expect(forged).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
  expect(await status(id)).toBe('pending');
  await click(card, choices[0]!.custom_id);
  const res = await request(`${relay.url}/v1/asks/${id}/wait?timeout=10`);
  expect(await res.body.json()).toMatchObject({
    status: 'completed',
    answer: { decision: 'ship' },
  });
});
