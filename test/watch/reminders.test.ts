/** Reminders from reminder_at and from review.reminder events: in the thread, once, never after the end. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import { cards, historyOf, startWatchRelay, type WatchRelay } from './helpers.ts';

let demo: DemoHandle;
beforeAll(async () => {
  demo = await startDemo();
});
afterAll(async () => {
  await demo.stop();
});

const notices = async (r: WatchRelay, room: string) =>
  (await r.room(room)).filter((m) => m.case === null);

describe('reminders', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hitl-reminders-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('REMIND-1 two reminder times make two reminders, none twice across a restart, none after completion', async () => {
    const t0 = Date.now();
    const at = (s: number) => new Date(t0 + s * 1000).toISOString();
    // The third time lies past the test's end: only the restarted relay's clock, moved on, gets there.
    const reminderAt = [at(2), at(5), at(600)];
    const response = await demo.create('approval', true, {
      reminder_at: reminderAt,
      expires_in_seconds: 3600,
    });
    let r = await startWatchRelay({ dataDir });
    const { id } = await r.send('web:remind', response);
    const [card] = await cards(r, 'remind');

    const first = await eventually(
      async () => ((await notices(r, 'remind')).length === 1 ? notices(r, 'remind') : null),
      15_000,
      'the first reminder',
    );
    // A reply in the card's thread, mentioning nobody, linking the card's Details link.
    expect(first[0].reply_to).toBe(card.id);
    expect(first[0].text).toMatch(/^Reminder: a decision is still needed: /);
    expect(first[0].text).not.toMatch(/@|<!/);
    expect(first[0].link).toEqual(card.link);
    expect(first[0].link.url).toMatch(/\/r\//);

    // Restart: stop the relay and start a new one on the same DATA_DIR.
    await r.stop();
    let ahead = 0;
    r = await startWatchRelay({ dataDir, now: () => Date.now() + ahead });
    try {
      // A marker with a reminder at the third time: once it is sent, the relay is past that time.
      const marker = await demo.create('approval', true, {
        reminder_at: [at(600)],
        expires_in_seconds: 3600,
      });
      await r.send('web:remind-marker', marker);
      await eventually(
        async () => (await notices(r, 'remind')).length >= 2,
        15_000,
        'the second reminder',
      );
      const tap = await r.tap('remind', card.id, 'approve');
      expect(tap.outcome).toBe('submitted');
      await eventually(async () => (await cards(r, 'remind'))[0].final, 10_000, 'the final card');
      // The third reminder time passes after completion: the marker's reminder is sent, this one not.
      ahead = 601_000;
      await eventually(
        async () => (await notices(r, 'remind-marker')).length === 1,
        10_000,
        "the marker's reminder",
      );
      const all = await notices(r, 'remind');
      expect(all).toHaveLength(2);
      expect(all.every((n) => n.reply_to === card.id)).toBe(true);
      const history = await historyOf(r, id);
      expect(history.filter((h) => h === 'reminder')).toHaveLength(2);
      const c = await r.get(id);
      expect(c.status).toBe('completed');
    } finally {
      await r.stop();
    }
  });

  it('REMIND-2 a review.reminder event from the stream is sent once, in the thread (polling slowed to minutes)', async () => {
    const r = await startWatchRelay({ slow: true });
    try {
      const response = await demo.create('confirmation', true);
      const { id } = await r.send('web:remind-sse', response);
      const [card] = await cards(r, 'remind-sse');
      // The relay's stream is open once an event reaches the card.
      await demo.act(response.hitl.case_id, { step: 'open' });
      await eventually(
        async () => (await cards(r, 'remind-sse'))[0].status.includes('opened'),
        10_000,
        'opened',
      );
      await demo.act(response.hitl.case_id, { step: 'remind' });
      const sent = await eventually(
        async () => {
          const n = await notices(r, 'remind-sse');
          return n.length ? n : null;
        },
        10_000,
        'the reminder',
      );
      expect(sent).toHaveLength(1);
      expect(sent[0].reply_to).toBe(card.id);
      // The service's own words ("Review expires in ...") go with it.
      expect(sent[0].text).toMatch(/Review expires in /);
      await demo.act(response.hitl.case_id, { step: 'cancel', reason: 'not needed' });
      await eventually(
        async () => (await cards(r, 'remind-sse'))[0].final,
        10_000,
        'the final card',
      );
      expect(await notices(r, 'remind-sse')).toHaveLength(1);
      expect((await historyOf(r, id)).filter((h) => h === 'reminder')).toHaveLength(1);
    } finally {
      await r.stop();
    }
  });

  it('REMIND-3 no reminder while the case is in progress, though its reminder_at has passed', async () => {
    const t0 = Date.now();
    let ahead = 0;
    const r = await startWatchRelay({ now: () => Date.now() + ahead });
    try {
      const response = await demo.create('input', true, {
        reminder_at: [new Date(t0 + 600_000).toISOString()],
        expires_in_seconds: 3600,
      });
      const { id } = await r.send('web:remind-busy', response);
      const progressed = (step: number) =>
        demo.act(response.hitl.case_id, {
          step: 'progress',
          progress: { current_step: step, total_steps: 5 },
        });
      const seen = (step: number) =>
        eventually(
          async () => (await r.get(id)).progress?.current_step === step,
          10_000,
          `progress step ${step}`,
        );
      await progressed(1);
      await seen(1);
      // Past the reminder time. Each look at a case ends before its next one begins, so once the
      // look that reads step 3 is done, the look that read step 2 (past reminder_at, with its
      // reminder check) has run to its end.
      ahead = 601_000;
      await progressed(2);
      await seen(2);
      await progressed(3);
      await seen(3);
      expect((await r.get(id)).status).toBe('in_progress');
      expect(await notices(r, 'remind-busy')).toEqual([]);
      expect((await historyOf(r, id)).filter((h) => h === 'reminder')).toEqual([]);
    } finally {
      await r.stop();
    }
  });
});
