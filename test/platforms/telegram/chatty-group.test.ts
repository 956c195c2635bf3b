/**
 * Fair pacing per chat (issue 32, item 4): three cases sending progress within every budget pushed
 * a new card in their Telegram group from 0.6 s to 19 s and more, since every send of a chat waited
 * in one line. Now new cards and final edits go before progress, progress fills at most 3/4 of the
 * group's window, and a message's edits still waiting are merged into the latest one.
 * The real adapter against the Telegram fake, on a pace scaled down (100 ms a chat, 20 per 3 s).
 */
import { afterEach, expect, it } from 'vitest';
import type { MessageRef } from '../../../src/adapter.ts';
import { makeCard, type Setup, setup } from './helpers.ts';

const PACE = {
  perChatIntervalMs: 100,
  groupLimit: 20,
  groupWindowMs: 3000,
  globalLimit: 30,
  globalWindowMs: 100,
};
/** One send of the group's pace on average (3 s / 20): a new card must go within a few. */
const CHAT_PACE_MS = PACE.groupWindowMs / PACE.groupLimit;

let s: Setup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** Resolves to how long `p` took, or fails after `ms`. */
async function timed(p: Promise<unknown>, ms: number, what: string): Promise<number> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
  return performance.now() - t0;
}

it('TG-FAIR-1: with 20 chatty cases in one group, a new card and a final edit go out within the chat pace; progress is merged to the latest', async () => {
  s = await setup({ pace: PACE });
  await s.adapter.start(s.ctx);
  const group = '-1001234';
  const cards: MessageRef[] = [];
  for (let i = 0; i < 20; i++)
    cards.push(await s.adapter.post(group, makeCard({ caseId: `c${i}`, key: `k${i}` })));

  // Each case reports progress every 20 ms, never waiting for its edits (as events arrive).
  let step = 0;
  let failed = 0;
  let decided = false; // case 0 is decided: no more progress for it
  const edits: Promise<void>[] = [];
  const chatty = setInterval(() => {
    step++;
    for (const [i, ref] of cards.entries()) {
      if (i === 0 && decided) continue;
      const card = makeCard({ caseId: `c${i}`, key: `k${i}`, status: `Step ${step}` });
      edits.push(
        s!.adapter.update(ref, card).catch(() => {
          failed++;
        }),
      );
    }
  }, 20);
  try {
    // Past the window of the 20 posts: the group's window now holds progress edits only.
    await new Promise((r) => setTimeout(r, PACE.groupWindowMs + 500));
    const newCard = await timed(
      s.adapter.post(group, makeCard({ caseId: 'new', key: 'knew', title: 'New case' })),
      20 * CHAT_PACE_MS,
      'the new card',
    );
    decided = true;
    const final = await timed(
      s.adapter.update(
        cards[0]!,
        makeCard({ caseId: 'c0', key: 'k0', status: 'Approved', final: true, actions: [] }),
      ),
      20 * CHAT_PACE_MS,
      'the final edit',
    );
    console.log(
      `new card ${Math.round(newCard)} ms, final edit ${Math.round(final)} ms, ${edits.length} progress edits asked`,
    );
    expect(newCard).toBeLessThan(4 * CHAT_PACE_MS);
    expect(final).toBeLessThan(4 * CHAT_PACE_MS);
  } finally {
    clearInterval(chatty);
  }
  await Promise.all(edits);
  expect(failed).toBe(0);
  const sent = s.fake.calls('editMessageText');
  // Far fewer edits reached Telegram than were asked for: the waiting ones were merged.
  expect(sent.length).toBeLessThan(edits.length / 4);
  // Each card ends on its latest step (nothing older overtook it), card 0 on its final edit.
  for (let i = 1; i < 20; i++) {
    const id = Number(cards[i]!.id.split(':')[1]);
    const last = sent.filter((b) => b.message_id === id).at(-1);
    expect(String(last?.text)).toContain(`Step ${step}`);
  }
});
