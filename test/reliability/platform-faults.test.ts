/**
 * Faults of the chat platforms, injected in their fakes: 429 with and without Retry-After, 5xx and
 * error answers on post and on edit. The case is kept, the card is posted exactly once, and the
 * final edit lands once the platform answers again (the adapter's own retries, then the relay's
 * reconcile loop).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { makePlatformRigs, type PlatformRig } from './platform-rigs.ts';

let demo: DemoHandle;
let relay: RelayHandle;
let rigs: PlatformRig[] = [];

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

describe.concurrent('post and edit faults on every platform', () => {
  for (const name of ['telegram', 'slack', 'discord', 'teams'])
    it(`${name}: the card is posted once and ends right`, async ({ expect }) => {
      const rig = rigs.find((r) => r.name === name)!;
      for (const kind of rig.faults) {
        const before = rig.cards().length;
        // Error answers are not retried by the adapter but by the relay's reconcile loop (every
        // few seconds), so one of those is enough; 429s and 5xx are retried at once, three times.
        const n = kind === 'error' ? 1 : 3;
        rig.failPosts(n, kind);
        const response = await demo.create('approval', true);
        delete response.hitl.events_url;
        const sent = await relay.send(rig.target, response);
        expect(sent.status, `${name} ${kind}`).toBe(201);
        await eventually(
          async () => rig.cards().length === before + 1,
          20_000,
          `${name}: the card after ${kind} on post`,
        );
        expect(rig.cards().at(-1)!.actions).toEqual(['approve', 'reject']);

        rig.failEdits(n, kind);
        await demo.act(response.hitl.case_id, { step: 'respond', action: 'approve', data: {} });
        await relay.until(sent.body.id, (c) => c.status === 'completed', 15_000);
        await eventually(
          async () => rig.cards().at(-1)!.actions.length === 0,
          20_000,
          `${name}: the final card after ${kind} on edit`,
        );
        const view = await eventually(
          async () => {
            const c = await relay.get(sent.body.id);
            return c.messages.every((m: any) => m.state === 'posted' && m.current) ? c : null;
          },
          20_000,
          `${name}: every message current`,
        );
        expect(view.messages).toHaveLength(1);
        expect(view.history.filter((h: any) => h.kind === 'posted')).toHaveLength(1);
        // Posted exactly once, whatever was retried.
        expect(rig.cards().length, `${name} ${kind}`).toBe(before + 1);
      }
    }, 120_000);
});
