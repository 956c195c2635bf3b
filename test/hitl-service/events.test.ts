import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  act,
  createCase,
  type DemoServer,
  inlineSubmit,
  manualClock,
  openSse,
  startDemoServer,
  submitBody,
} from '../demo/helpers.ts';

const clock = manualClock();
let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer({ now: clock.now });
});
afterAll(() => server.close());

describe('GET /api/reviews/:id/events (SSE)', () => {
  it('streams each status change with a per-case id and closes after the terminal event', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    const res = await fetch(hitl.events_url, { headers: { accept: 'text/event-stream' } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    await res.body?.cancel();

    const sse = await openSse(hitl.events_url);
    await act(server.base, hitl.case_id, { step: 'open' });
    await sse.waitFor(1);
    await act(server.base, hitl.case_id, {
      step: 'progress',
      progress: { current_step: 1, total_steps: 1 },
    });
    await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'));
    await sse.ended;
    expect(sse.events.map((e) => [e.id, e.event])).toEqual([
      ['1', 'review.opened'],
      ['2', 'review.in_progress'],
      ['3', 'review.completed'],
    ]);
    const opened = JSON.parse(sse.events[0]!.data);
    expect(opened).toEqual({
      case_id: hitl.case_id,
      opened_at: new Date(clock.now()).toISOString(),
    });
    expect(JSON.parse(sse.events[1]!.data).progress).toEqual({ current_step: 1, total_steps: 1 });
    const completed = JSON.parse(sse.events[2]!.data);
    expect(completed).toMatchObject({
      case_id: hitl.case_id,
      result: { action: 'approve', data: {} },
    });
    expect(completed.completed_at).toBeTruthy();
  });

  it('replays the events after Last-Event-ID, then goes on live', async () => {
    const { hitl } = await createCase(server.base, 'confirmation', true);
    await act(server.base, hitl.case_id, { step: 'open' });
    await act(server.base, hitl.case_id, { step: 'remind' });
    const resumed = await openSse(hitl.events_url, '1');
    await resumed.waitFor(1);
    expect(resumed.events.map((e) => [e.id, e.event])).toEqual([['2', 'review.reminder']]);
    expect(JSON.parse(resumed.events[0]!.data).message).toMatch(/^Review expires in /);
    await act(server.base, hitl.case_id, { step: 'cancel', reason: 'wrong recipient' });
    await resumed.ended;
    expect(resumed.events.map((e) => e.event)).toEqual(['review.reminder', 'review.cancelled']);
    expect(JSON.parse(resumed.events[1]!.data)).toMatchObject({ reason: 'wrong recipient' });

    // From the start, everything is replayed and the stream ends at the terminal event.
    const full = await openSse(hitl.events_url);
    await full.ended;
    expect(full.events.map((e) => e.id)).toEqual(['1', '2', '3']);
    // Having seen the terminal event, a reconnect gets an empty stream that closes at once.
    const after = await openSse(hitl.events_url, '3');
    await after.ended;
    expect(after.events).toEqual([]);
    // An id the case never issued replays everything rather than silently skipping.
    const foreign = await openSse(hitl.events_url, '99');
    await foreign.ended;
    expect(foreign.events.map((e) => e.id)).toEqual(['1', '2', '3']);
  });

  it('pushes review.expired to a live subscriber when the time runs out', async () => {
    const { hitl } = await createCase(server.base, 'escalation', true, { expires_in_seconds: 120 });
    const sse = await openSse(hitl.events_url);
    clock.advance(120_000);
    await sse.ended;
    expect(sse.events.map((e) => e.event)).toEqual(['review.expired']);
    expect(JSON.parse(sse.events[0]!.data)).toEqual({
      case_id: hitl.case_id,
      expired_at: hitl.expires_at,
      default_action: 'abort',
    });
  });

  it('emits review.reminder at each reminder_at while the case is pending or opened', async () => {
    const at = (s: number) => new Date(clock.now() + s * 1000).toISOString();
    const reminders = [at(10), at(20), at(30)];
    const { hitl } = await createCase(server.base, 'approval', false, {
      reminder_at: reminders,
      expires_in_seconds: 3600,
    });
    const sse = await openSse(hitl.events_url);
    clock.advance(10_000);
    await sse.waitFor(1);
    await act(server.base, hitl.case_id, { step: 'open' });
    clock.advance(10_000);
    await sse.waitFor(3);
    // In progress: the third reminder is not sent.
    await act(server.base, hitl.case_id, { step: 'progress' });
    clock.advance(10_000);
    await act(server.base, hitl.case_id, { step: 'cancel' });
    await sse.ended;
    expect(sse.events.map((e) => e.event)).toEqual([
      'review.reminder',
      'review.opened',
      'review.reminder',
      'review.in_progress',
      'review.cancelled',
    ]);
    expect(JSON.parse(sse.events[0]!.data).reminder_at).toBe(reminders[0]);
    expect(JSON.parse(sse.events[2]!.data).reminder_at).toBe(reminders[1]);
  });

  it('404 for an unknown case', async () => {
    const res = await fetch(`${server.base}/api/reviews/review_missing/events`);
    expect(res.status).toBe(404);
  });
});
