/**
 * SSE against the spec double with polling slowed to minutes, so only the stream can be quick:
 * any terminal event, whatever its data, brings the confirming poll; event names the spec does not
 * have are ignored quietly; a stream the service leaves open after the end is closed by us.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { eventually } from '../helpers/relay-env.ts';
import { cards, historyOf, startWatchRelay, type WatchRelay } from './helpers.ts';

let double: SpecDouble;
let r: WatchRelay;
beforeAll(async () => {
  double = await startSpecDouble();
  r = await startWatchRelay({ slow: true });
});
afterAll(async () => {
  await r.stop();
  await double.close();
});

async function streamed(room: string) {
  const body = double.create({ events: true });
  const caseId = body.hitl.case_id as string;
  const c = double.get(caseId);
  c.bareTerminalEvents = true;
  c.keepStreamsOpen = true;
  // Events a newer service (or its own extensions) sends: not in the spec, not a reason to warn.
  c.onConnect = [
    { event: 'review.pending', data: { case_id: caseId } },
    { event: 'x-acme.heartbeat', data: '{}' },
  ];
  const { id } = await r.send(`web:${room}`, body);
  await eventually(async () => double.streams(caseId) === 1, 5000, 'the stream');
  return { id, caseId };
}

it('SSE-1 a terminal event without data reaches the card in under 2 s (polls are minutes apart)', async () => {
  const { id, caseId } = await streamed('sse-bare');
  const polls = double.seen('poll', caseId).length;
  const started = Date.now();
  double.complete(caseId, 'approve', { data: { note: 'page' } });
  await eventually(async () => (await cards(r, 'sse-bare'))[0]?.final, 2000, 'the final card');
  const took = Date.now() - started;
  expect(took).toBeLessThan(2000);
  expect(double.seen('poll', caseId).length).toBe(polls + 1);
  const v = await r.get(id);
  expect(v).toMatchObject({
    status: 'completed',
    result: { action: 'approve', data: { note: 'page' } },
  });
  expect(await historyOf(r, id)).toEqual(
    expect.arrayContaining(['sse_event', 'status:completed:poll']),
  );
  // The stream the service left open is closed by the relay.
  await eventually(async () => double.streams(caseId) === 0, 2000, 'the stream closed');
});

it('SSE-2 unknown event names are ignored quietly; expired and cancelled without data are confirmed too', async () => {
  const a = await streamed('sse-exp');
  double.expire(a.caseId);
  await eventually(async () => (await r.get(a.id)).status === 'expired', 2000, 'expired');
  const b = await streamed('sse-can');
  double.cancel(b.caseId, 'withdrawn');
  await eventually(async () => (await r.get(b.id)).status === 'cancelled', 2000, 'cancelled');
  expect((await r.get(b.id)).reason).toBe('withdrawn');
  const warned = r.logs
    .map((l) => JSON.parse(l))
    .filter((l) => l.level >= 40 && /event/.test(l.msg ?? ''));
  expect(warned).toEqual([]);
});

it('SSE-3 a review.completed whose data lacks result still brings the confirming poll', async () => {
  const { id, caseId } = await streamed('sse-noresult');
  const c = double.get(caseId);
  Object.assign(c, {
    status: 'completed',
    completed_at: new Date().toISOString(),
    result: { action: 'reject', data: {} },
  });
  double.push(caseId, { event: 'review.completed', data: { case_id: caseId } });
  await eventually(async () => (await r.get(id)).status === 'completed', 2000, 'completed');
  expect((await r.get(id)).result).toEqual({ action: 'reject', data: {} });
});

it('SSE-6 a terminal event never decides: its data is not believed, the poll says what happened', async () => {
  const { id, caseId } = await streamed('sse-lie');
  const polls = double.seen('poll', caseId).length;
  // The event says approved; the service still says pending.
  double.push(caseId, {
    event: 'review.completed',
    data: {
      case_id: caseId,
      completed_at: new Date().toISOString(),
      result: { action: 'approve' },
    },
  });
  await eventually(
    async () => double.seen('poll', caseId).length > polls,
    10_000,
    'the confirming poll',
  );
  await eventually(async () => (await historyOf(r, id)).includes('sse_event'), 10_000, 'the event');
  const open = await r.get(id);
  expect(open.status).toBe('pending');
  expect(open.result).toBeNull();
  expect((await cards(r, 'sse-lie'))[0].final).toBe(false);
  // Now the service records a reject while the event claims an approve: the poll's answer stands.
  Object.assign(double.get(caseId), {
    status: 'completed',
    completed_at: new Date().toISOString(),
    result: { action: 'reject', data: {} },
  });
  double.push(caseId, {
    event: 'review.completed',
    data: {
      case_id: caseId,
      completed_at: new Date().toISOString(),
      result: { action: 'approve' },
    },
  });
  const done = await eventually(async () => {
    const v = await r.get(id);
    return v.status === 'completed' ? v : undefined;
  }, 10_000);
  expect(done.result).toEqual({ action: 'reject', data: {} });
  expect(await historyOf(r, id)).toContain('status:completed:poll');
});
