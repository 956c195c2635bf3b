/**
 * Finding 10 (smaller): U+202E (and the other bidirectional controls) passed into cards on every
 * platform, so a service could make a person read "txt.exe" as "exe.txt". They are removed when
 * the card is rendered, which every platform's message is made from.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { makePlatformRigs, type PlatformRig } from './platform-rigs.ts';
import { cardOf } from './web.ts';

let demo: DemoHandle;
let relay: RelayHandle;
let rigs: PlatformRig[] = [];
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;

beforeAll(async () => {
  demo = await startDemo();
  rigs = await makePlatformRigs();
  relay = await startRelay({ adapters: [createWebAdapter(), ...rigs.map((r) => r.adapter)] });
  for (const r of rigs) await r.attach?.(relay.url);
}, 60_000);
afterAll(async () => {
  await relay?.stop();
  for (const r of rigs) await r.close();
  await demo?.stop();
});

it('finding 10 (bidi controls): U+202E and friends reach no platform', async () => {
  const response = await demo.create('approval', true, {
    prompt: 'Open invoice_\u202Efdp.exe\u2066 now?',
    context: { file: 'report\u202Etxt.exe', note: 'ok\u200F\u061C' },
  });
  delete response.hitl.events_url;
  const web = await relay.send('web:bidi', response);
  const webCard = await eventually(() => cardOf(relay.url, 'bidi', web.body.id), 10_000, 'web');
  expect(JSON.stringify(webCard)).not.toMatch(BIDI);
  expect(JSON.stringify(webCard)).toContain('invoice_fdp.exe now?');
  for (const rig of rigs) {
    const before = rig.cards().length;
    const again = await demo.create('approval', true, {
      prompt: 'Open invoice_\u202Efdp.exe\u2066 now?',
      context: { file: 'report\u202Etxt.exe' },
    });
    delete again.hitl.events_url;
    expect((await relay.send(rig.target, again)).status).toBe(201);
    await eventually(async () => rig.cards().length > before, 20_000, rig.name);
    const text = rig.cards().at(-1)!.text;
    expect(text, rig.name).not.toMatch(BIDI);
    expect(text, rig.name).toContain('fdp.exe');
  }
}, 60_000);
