/**
 * A poll while a tap's submit is in flight: the service has stored the decision but not yet
 * answered the submit. The watcher must leave the settling to the tap (whose one write carries
 * who submitted it), and look again when the claim ends. Before, a poll landing in that window
 * wrote the completion without submitted_by (seen as a flaky client test under load).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { eventually } from '../helpers/relay-env.ts';
import { cards, historyOf, startWatchRelay, type WatchRelay } from './helpers.ts';

let double: SpecDouble;
let r: WatchRelay;
beforeAll(async () => {
  double = await startSpecDouble();
  r = await startWatchRelay(); // polls every 0.2-1 s
});
afterAll(async () => {
  await r.stop();
  await double.close();
});

it('a due poll during a live claim is deferred to the claim; the tap settles with submitted_by', async () => {
  const body = double.create({ inline: true });
  const caseId = body.hitl.case_id as string;
  let answer!: () => void;
  double.get(caseId).holdSubmitAnswer = new Promise<void>((resolve) => (answer = resolve));
  const { id } = await r.send('web:in-flight', body);
  const card = await eventually(async () => (await cards(r, 'in-flight'))[0], 5000, 'the card');
  const tap = r.tap('in-flight', card.id, 'approve');
  await eventually(async () => double.seen('submit', caseId).length === 1, 5000, 'the submit');
  const pollsAtSubmit = double.seen('poll', caseId).length;
  // The service shows the case completed from now on. The watcher's next looks (due every 0.2-1 s)
  // must be put off while the claim is live instead of applying what they would read.
  await eventually(
    async () => r.logs.some((l) => l.includes('poll deferred') && l.includes(id)),
    10_000,
    "the watcher's look deferred",
  );
  expect((await r.relay.services.store.getCase(id))?.status).not.toBe('completed');
  expect(double.seen('poll', caseId).length).toBe(pollsAtSubmit);
  answer();
  expect((await tap).outcome).toBe('submitted');
  const v = await eventually(
    async () => {
      const x = await r.get(id);
      return x.status === 'completed' ? x : null;
    },
    5000,
    'completed',
  );
  expect(v.submitted_by).toMatchObject({ platform: 'x-web', platform_user_id: 'ann' });
  expect((await historyOf(r, id)).filter((k) => k.startsWith('status:completed'))).toHaveLength(1);
});
