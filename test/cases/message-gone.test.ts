/**
 * A card deleted on one target: that message is marked gone and left alone, while the case and the
 * card on the other target go on to the final state (Slack's fake, two channels, one route).
 */
import { afterEach, expect, it } from 'vitest';
import type { AdapterHarness } from '../contract/harness.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { makeSlackHarness, SLACK_TEST_CHANNEL } from '../platforms/slack/harness.ts';

const OTHER = 'C0HITLOTHER';
let h: AdapterHarness;
let demo: DemoHandle;
let relay: RelayHandle;

afterEach(async () => {
  await relay?.stop();
  await demo?.stop();
  await h?.close();
});

it('a message gone on one target leaves the case and the other target going', async () => {
  h = await makeSlackHarness();
  demo = await startDemo();
  relay = await startRelay({
    adapters: [h.adapter],
    routes: {
      both: {
        targets: [`slack:${SLACK_TEST_CHANNEL}`, `slack:${OTHER}`],
        allow: [h.users.allowed.id],
      },
    },
  });
  const response = await demo.create('approval', true);
  const sent = await relay.send('route:both', response);
  expect(sent.status).toBe(201);
  const [gone, other] = await eventually(
    async () => {
      const a = (await h.messages(SLACK_TEST_CHANNEL))[0];
      const b = (await h.messages(OTHER))[0];
      return a && b ? [a, b] : null;
    },
    10_000,
    'both cards',
  );
  h.world!.deleteMessage(gone!);
  // A tap on the other target's card still decides the case.
  await h.tap({ ref: other!, action: 'approve', user: h.users.allowed, relayUrl: relay.url });
  const done = await relay.until(
    sent.body.id,
    (c) =>
      c.status === 'completed' &&
      c.messages.some((m: any) => m.state === 'gone') &&
      c.messages.some((m: any) => m.current),
    15_000,
  );
  const byTarget = Object.fromEntries(done.messages.map((m: any) => [m.target, m]));
  expect(byTarget[`slack:${SLACK_TEST_CHANNEL}`].state).toBe('gone');
  expect(byTarget[`slack:${OTHER}`]).toMatchObject({ state: 'posted', current: true });
  expect((await h.read(other!)).actions).toEqual([]);
  expect(done.history.filter((e: any) => e.kind === 'message_gone')).toHaveLength(1);
});
