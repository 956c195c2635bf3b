/**
 * Issue 35: the reasons a bulk decision leaves a case out are the relay's words (templates
 * `adapter.pending.bulk.reasons`), so a relay with another LOCALE gives them in its language: the
 * list's own (four-eyes, from src/cases/pending.ts) and the bulk path's (not in the inbox, no such
 * button, from src/adapter-bulk.ts), in the web inbox and on a chat's `/pending` confirm step.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import type { FakeDiscordMessage } from '../fakes/discord-api.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  TEST_DISCORD_CHANNEL_ID,
  visibleText,
} from './discord/harness.ts';
import { deliverTo, ephemeralMessage, pendingCommand } from './discord/pending-wire.ts';

const CHANNEL = TEST_DISCORD_CHANNEL_ID;
const ann = { id: '2100000000000000021', name: 'Ann' };
const locale = `zz${randomBytes(4).toString('hex').replace(/\d/g, 'q')}`;
const file = fileURLToPath(new URL(`../../templates/${locale}.json`, import.meta.url));
const REASONS = {
  four_eyes: 'Vier Augen: {{required}} Personen müssen zustimmen; auf der Karte entscheiden',
  unlisted: 'nicht in deinem Eingang',
  no_action: 'hat keinen Knopf „{{action}}“',
};
let service: Awaited<ReturnType<typeof startFastService>>;
let h: DiscordHarness;
let relay: RelayHandle;
const key: Record<string, string> = {};

beforeAll(async () => {
  service = await startFastService();
  h = await makeDiscordHarnessWith();
  writeFileSync(file, JSON.stringify({ adapter: { pending: { bulk: { reasons: REASONS } } } }));
  try {
    relay = await startRelay({
      adapters: [createWebAdapter(), h.adapter],
      env: { LOCALE: locale },
      allow: { 'web:ops': ['ann'], [`discord:${CHANNEL}`]: [ann.id] },
      configFile: {
        policies: { pair: { required: 2 } },
        routes: {
          four: { targets: ['web:ops'], policy: 'pair' },
          dcfour: { targets: [`discord:${CHANNEL}`], policy: 'pair' },
        },
      },
    });
  } finally {
    rmSync(file, { force: true });
  }
  for (const [name, target] of [
    ['one', 'web:ops'],
    ['four', 'route:four'],
    ['dc-one', `discord:${CHANNEL}`],
    ['dc-four', 'route:dcfour'],
  ] as const) {
    const sent = await relay.send(target, service.create(`loc-${name}`));
    expect(sent.status).toBe(201);
    key[name] = (await relay.relay.services.store.getCase(sent.body.id))!.key;
  }
  await eventually(async () => h.fake.messages(CHANNEL).length === 2, 10_000, 'the cards');
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await service?.stop();
});

it('PENDING-BULK-LOCALE-1 the web inbox gives the reasons in the relay locale', async () => {
  const res = await request(`${relay.url}/web/api/inbox/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      user: { id: 'ann' },
      action: 'approve',
      keys: [key.one, key.four, 'not-a-case-here'],
    }),
  });
  const preview = (await res.body.json()) as any;
  expect(preview.skipped).toEqual([
    {
      key: key.four,
      prompt: expect.any(String),
      reason: REASONS.four_eyes.replace('{{required}}', '2'),
    },
    { key: 'not-a-case-here', prompt: null, reason: REASONS.unlisted },
  ]);
  const other = await request(`${relay.url}/web/api/inbox/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: 'ann' }, action: 'ship', keys: [key.one] }),
  });
  const none = (await other.body.json()) as any;
  expect(none.skipped).toEqual([
    { key: key.one, prompt: expect.any(String), reason: 'hat keinen Knopf „ship“' },
  ]);
  const rows = (await (await request(`${relay.url}/web/api/inbox?user=ann`)).body.json()) as any;
  const four = rows.items.find((i: any) => i.key === key.four);
  expect(four.bulk.reason).toBe(
    'Vier Augen: 2 Personen müssen zustimmen; auf der Karte entscheiden',
  );
  expect(service.submits).toBe(0);
});

it('PENDING-BULK-LOCALE-2 a chat confirm step gives the reasons in the relay locale', async () => {
  const list = await deliverTo(h, relay.url, pendingCommand(ann));
  const buttons = list.data.components.flatMap((r: FakeDiscordMessage['components'][number]) =>
    r.components.map((c: any) => c as { label: string; custom_id: string }),
  );
  const all = buttons.find((b) => b.label === 'Approve all (1)')!;
  const step = await deliverTo(
    h,
    relay.url,
    componentInteraction({
      message: ephemeralMessage(list.data),
      customId: all.custom_id,
      user: ann,
    }),
  );
  expect(visibleText(step.data.content)).toContain(
    'Deploy build loc-dc-four to production? — Vier Augen: 2 Personen müssen zustimmen; auf der Karte entscheiden',
  );
  expect(service.submits).toBe(0);
});
