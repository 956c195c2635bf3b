/** Multi-round approval (spec 10.1, 15.3): edit -> a follow-up case with previous_case_id, one thread. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import { cards, demoCall, startWatchRelay, type WatchRelay } from './helpers.ts';

let demo: DemoHandle;
let r: WatchRelay;
beforeAll(async () => {
  demo = await startDemo();
  r = await startWatchRelay();
});
afterAll(async () => {
  await r.stop();
  await demo.stop();
});

/** The reviewer asks for changes on the review page; the service answers with the next round's 202 body. */
async function edit(caseId: string, feedback: string): Promise<Record<string, any>> {
  const answer = await demoCall(demo.url, 'POST', `/api/_test/reviews/${caseId}/act`, {
    step: 'respond',
    action: 'edit',
    data: { feedback },
  });
  expect(answer.next?.hitl.previous_case_id).toBe(caseId);
  return answer.next;
}

it('ROUND-1 a three-round approval chain shows as one thread, each earlier card marked revised', async () => {
  const room = 'rounds';
  const round1 = await demo.create('approval', true);
  const one = await r.send(`web:${room}`, round1);

  const round2 = await edit(round1.hitl.case_id, 'Shorter title, please');
  const two = await r.send(`web:${room}`, round2);
  expect(two.previous_id).toBe(one.id);

  const round3 = await edit(round2.hitl.case_id, 'Fix the conclusion');
  const three = await r.send(`web:${room}`, round3);
  expect(three.previous_id).toBe(two.id);
  // The chain is stored at intake: a render or a post of round 3 reads no earlier case to know its
  // round or its thread.
  const stored = await r.relay.services.store.getCase(three.id);
  expect(stored?.doc.chain).toEqual([one.id, two.id]);

  let msgs = await cards(r, room);
  const byCase = (id: string) => msgs.find((m) => m.case === id);
  // Later rounds are replies to the first round's card: one thread.
  expect(byCase(one.id).reply_to).toBeNull();
  expect(byCase(two.id).reply_to).toBe(byCase(one.id).id);
  expect(byCase(three.id).reply_to).toBe(byCase(one.id).id);
  // Round 2 was sent back by round 3: a final card, its title led by how it ended.
  expect(byCase(two.id).title).toBe('☑️ Sent back for changes · Approval needed · Round 2');
  expect(byCase(three.id).title).toBe('Approval needed · Round 3');

  const tap = await r.tap(room, byCase(three.id).id, 'approve');
  expect(tap.outcome).toBe('submitted');

  msgs = await eventually(
    async () => {
      const m = await cards(r, room);
      const done = [one.id, two.id, three.id].every((id) => m.find((x) => x.case === id)?.final);
      const marked = m.find((x) => x.case === one.id)?.status.includes('see round 2');
      return done && marked ? m : null;
    },
    15_000,
    'all three rounds final',
  );
  expect(msgs).toHaveLength(3);
  expect(byCase(one.id).status).toMatch(
    /^Sent back for changes by Demo reviewer .*Revised: see round 2$/,
  );
  expect(byCase(two.id).status).toMatch(/^Sent back for changes .*Revised: see round 3$/);
  expect(byCase(three.id).status).toMatch(/^Approved by Ann /);
  expect(byCase(three.id).status).not.toContain('Revised');
  // Earlier rounds keep no buttons; only the last round was ever tappable after its successor came.
  for (const m of msgs) expect(m.actions).toEqual([]);
  const first = await r.get(one.id);
  expect(first.next_id).toBe(two.id);
  expect(first.next_case_id).toBe(round2.hitl.case_id);
});
