/** The SSE client against the demo service over real HTTP: pushes, reconnection, fallback, cap. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import {
  answerOnReviewPage,
  cards,
  demoCall,
  historyOf,
  startProxy,
  startWatchRelay,
  type TcpProxy,
  type WatchRelay,
} from './helpers.ts';

let demo: DemoHandle;
let proxy: TcpProxy;
/** The demo service as seen through the proxy: every URL in its 202 bodies points at the proxy. */
let base: string;
const relays: WatchRelay[] = [];

beforeAll(async () => {
  demo = await startDemo();
  proxy = await startProxy(Number(new URL(demo.url).port));
  base = `http://127.0.0.1:${proxy.port}/demo`;
});
afterEach(async () => {
  proxy.release();
  while (relays.length) await relays.pop()!.stop();
});
afterAll(async () => {
  await proxy.close();
  await demo.stop();
});

async function relay(options: Parameters<typeof startWatchRelay>[0] = {}) {
  const r = await startWatchRelay(options);
  relays.push(r);
  return r;
}

async function createCase(type: string, body: Record<string, unknown> = {}) {
  return (await demoCall(base, 'POST', `/api/reviews?type=${type}&inline=1`, body)) as {
    hitl: Record<string, any>;
  };
}

// The reviewer and the test controls reach the service directly; only the relay goes through the proxy.
const act = (caseId: string, step: Record<string, unknown>) =>
  demoCall(demo.url, 'POST', `/api/_test/reviews/${caseId}/act`, step);

const eventsRequests = (caseId: string) => proxy.requests(new RegExp(`GET \\S*/${caseId}/events`));

async function cardText(r: WatchRelay, room: string, caseId: string): Promise<string> {
  const m = (await cards(r, room)).find((x) => x.case === caseId);
  return m ? `${m.status}${m.final ? ' [final]' : ''}` : '';
}

describe('SSE (polling slowed to minutes)', () => {
  it('a decision on the review page reaches the card through the stream', async () => {
    const r = await relay({ slow: true });
    const response = await createCase('approval');
    const { id } = await r.send('web:sse-decision', response);
    const caseId = response.hitl.case_id;
    await eventually(async () => eventsRequests(caseId).length > 0, 10_000, 'the stream');

    await act(caseId, { step: 'open' });
    await eventually(
      async () => (await cardText(r, 'sse-decision', id)).includes('review page was opened'),
      10_000,
      'opened on the card',
    );
    await answerOnReviewPage(response.hitl, 'approve', {}, demo.url);
    const final = await eventually(
      async () => {
        const text = await cardText(r, 'sse-decision', id);
        return text.includes('[final]') ? text : null;
      },
      10_000,
      'the final card',
    );
    expect(final).toMatch(/^Approved by Demo reviewer/);
    const history = await historyOf(r, id);
    // Not terminal: applied from the event. Terminal: confirmed by a poll before the card was finalised.
    expect(history).toContain('status:opened:sse');
    expect(history).toContain('sse_event');
    expect(history).toContain('status:completed:poll');
    expect(history.indexOf('sse_event')).toBeLessThan(history.indexOf('status:completed:poll'));
  });

  it('shows progress from review.in_progress: "step 2 of 3, 4 of 8 fields"', async () => {
    const r = await relay({ slow: true });
    const response = await createCase('input');
    const { id } = await r.send('web:sse-progress', response);
    const caseId = response.hitl.case_id;
    await eventually(async () => eventsRequests(caseId).length > 0, 10_000, 'the stream');
    await act(caseId, {
      step: 'progress',
      progress: { current_step: 2, total_steps: 3, completed_fields: 4, total_fields: 8 },
    });
    const text = await eventually(
      async () => {
        const t = await cardText(r, 'sse-progress', id);
        return t.includes('step') ? t : null;
      },
      10_000,
      'progress on the card',
    );
    expect(text).toContain('In progress: step 2 of 3, 4 of 8 fields');
    expect(await historyOf(r, id)).toContain('status:in_progress:sse');
  });

  it('SSE-4 a cut stream comes back with Last-Event-ID and misses no transition', async () => {
    const r = await relay({ slow: true });
    const response = await createCase('approval');
    const { id } = await r.send('web:sse-cut', response);
    const caseId = response.hitl.case_id;
    await eventually(async () => eventsRequests(caseId).length > 0, 10_000, 'the stream');
    await act(caseId, { step: 'open' });
    await eventually(
      async () => (await cardText(r, 'sse-cut', id)).includes('opened'),
      10_000,
      'opened',
    );

    // The network drops the stream; while it is down the reviewer moves on, and the service
    // fails the first two reconnects as well.
    proxy.hold();
    proxy.cut();
    await act(caseId, {
      step: 'progress',
      progress: { current_step: 1, total_steps: 2 },
    });
    await demo.fault({ route: 'events', kind: '500', count: 2 });
    proxy.release();

    await eventually(
      async () => (await cardText(r, 'sse-cut', id)).includes('step 1 of 2'),
      10_000,
      'the missed in_progress event',
    );
    const resumed = eventsRequests(caseId).slice(1);
    expect(resumed.length).toBeGreaterThanOrEqual(3);
    // Every reconnect names the last event seen (id 1: review.opened).
    for (const head of resumed) expect(head).toMatch(/\r\nlast-event-id: 1(\r\n|$)/i);

    await answerOnReviewPage(response.hitl, 'approve', {}, demo.url);
    await eventually(
      async () => (await cardText(r, 'sse-cut', id)).includes('[final]'),
      10_000,
      'the final card',
    );
    const history = await historyOf(r, id);
    expect(history.filter((h) => h.startsWith('status:'))).toEqual([
      'status:opened:sse',
      'status:in_progress:sse',
      'status:completed:poll',
    ]);
    expect(history).not.toContain('sse_fallback');
  });

  for (const kind of ['500', 'truncated', 'reset'] as const) {
    it(`SSE-5 a stream that keeps failing (${kind}) falls back to polling`, async () => {
      const r = await relay({ streams: { maxFailures: 3 } });
      await demo.fault({ route: 'events', kind, count: 3 });
      const response = await createCase('approval');
      const { id } = await r.send(`web:sse-fallback-${kind}`, response);
      await eventually(
        async () => (await historyOf(r, id)).includes('sse_fallback'),
        10_000,
        'the fallback',
      );
      const c = await r.get(id);
      const fallback = c.history.find((h: any) => h.kind === 'sse_fallback');
      expect(fallback.failures).toBe(3);
      // Half an event at the end of a broken stream changed nothing.
      expect(c.status).toBe('pending');
      expect(eventsRequests(response.hitl.case_id)).toHaveLength(3);

      await answerOnReviewPage(response.hitl, 'reject', { feedback: 'no' }, demo.url);
      await eventually(
        async () => (await cardText(r, `sse-fallback-${kind}`, id)).includes('[final]'),
        10_000,
        'the final card by polling',
      );
      expect(await historyOf(r, id)).toContain('status:completed:poll');
      // Polling only: no stream was opened again.
      expect(eventsRequests(response.hitl.case_id)).toHaveLength(3);
    });
  }

  it('holds at most SSE_MAX_STREAMS streams; the other cases are polled', async () => {
    const r = await relay({ env: { SSE_MAX_STREAMS: '1' } });
    const first = await createCase('confirmation');
    const second = await createCase('confirmation');
    const a = await r.send('web:sse-cap', first);
    await eventually(async () => eventsRequests(first.hitl.case_id).length > 0, 10_000, 'stream 1');
    const b = await r.send('web:sse-cap', second);
    // The second case is polled (several times) but never streamed while the first stream lives.
    await eventually(
      async () => proxy.requests(new RegExp(`GET \\S*/${second.hitl.case_id}/status`)).length >= 3,
      10_000,
      'polls of the second case',
    );
    expect(eventsRequests(second.hitl.case_id)).toHaveLength(0);
    await answerOnReviewPage(second.hitl, 'confirm', {}, demo.url);
    await eventually(
      async () => (await cardText(r, 'sse-cap', b.id)).includes('[final]'),
      10_000,
      'second final',
    );
    // Once the first case ends, its stream closes and the room is free again.
    await answerOnReviewPage(first.hitl, 'confirm', {}, demo.url);
    await eventually(
      async () => (await cardText(r, 'sse-cap', a.id)).includes('[final]'),
      10_000,
      'first final',
    );
  });
});
