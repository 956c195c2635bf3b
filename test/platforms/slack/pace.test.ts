/**
 * Slack's send pace (the shared src/pace.ts with Slack's limits): chat.postMessage about once a
 * second per channel, channels apart, and a 429 holds its channel for Retry-After.
 */
import { afterEach, expect, it } from 'vitest';
import { SLACK_DEFAULT_PACE } from '../../../platforms/slack/api.ts';
import { approvalCard } from './cards.ts';
import { type SlackSetup, setupSlack } from './setup.ts';

let s: SlackSetup;
afterEach(async () => {
  await s?.close();
});

it('posts to one channel about once a second, and to other channels meanwhile', async () => {
  s = await setupSlack({ options: { pace: SLACK_DEFAULT_PACE } });
  const t0 = Date.now();
  await Promise.all([
    s.adapter.post('C0ONE', approvalCard()),
    s.adapter.post('C0ONE', approvalCard()),
    s.adapter.post('C0TWO', approvalCard()),
    s.adapter.post('C0THREE', approvalCard()),
  ]);
  const posts = s.fake.calls('chat.postMessage');
  const at = (channel: string) =>
    posts.filter((r) => r.fields.channel === channel).map((r) => r.at);
  const [first, second] = at('C0ONE');
  expect(second! - first!).toBeGreaterThanOrEqual(800);
  // The other channels did not wait for C0ONE's second slot.
  expect(at('C0TWO')[0]! - t0).toBeLessThan(900);
  expect(at('C0THREE')[0]! - t0).toBeLessThan(900);
});

it('a 429 on one channel holds that channel for Retry-After and loses nothing', async () => {
  s = await setupSlack({
    options: {
      pace: { postMessagePerChannel: [{ limit: 1, windowMs: 5 }], update: [] },
      // Really wait (the default setup only records the waits).
      rateLimit: { sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    },
  });
  s.fake.rateLimit('chat.postMessage', 1, 1);
  const first = s.adapter.post('C0ONE', approvalCard());
  // The 429 has been answered: a second card to that channel waits out the hold too.
  while (s.logs.filter((l) => l.includes('slack rate limited')).length === 0)
    await new Promise((r) => setTimeout(r, 10));
  const other = s.adapter.post('C0TWO', approvalCard());
  const second = s.adapter.post('C0ONE', approvalCard());
  const refs = await Promise.all([first, second, other]);
  expect(new Set(refs.map((r) => r.id)).size).toBe(3);
  const posts = s.fake.calls('chat.postMessage');
  const one = posts.filter((r) => r.fields.channel === 'C0ONE').map((r) => r.at);
  const two = posts.filter((r) => r.fields.channel === 'C0TWO').map((r) => r.at);
  // Refused, then both delivered after the 1 s the 429 asked for; the other channel did not wait.
  expect(one).toHaveLength(3);
  expect(one[1]! - one[0]!).toBeGreaterThanOrEqual(800);
  expect(two[0]! - one[0]!).toBeLessThan(900);
  expect(s.fake.messages('C0ONE')).toHaveLength(2);
});
