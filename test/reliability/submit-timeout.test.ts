/**
 * A timed-out submit tells the truth (issue 15). A submit whose bytes were sent and that got no
 * answer before the deadline has an unknown outcome: the service may have recorded the decision.
 * The person is told so ("may have recorded your decision — checking"), the card offers no blind
 * second submit, and a poll of the spec double decides: (a) it recorded it → the final card;
 * (b) it did not → the buttons come back with a clear line. "Could not reach" is said only when
 * the request provably never left.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { HANG, RECORD_THEN_HANG, type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { cardOf, tapWeb } from './web.ts';

let relay: RelayHandle;
let svc: SpecDouble;
beforeAll(async () => {
  svc = await startSpecDouble();
  // A short submit deadline keeps the test fast; the poll interval is long, so the tap's own
  // confirming poll is what settles the case, not a watcher tick.
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: {
      SUBMIT_TIMEOUT_SECONDS: '1',
      POLL_INTERVAL_MIN_SECONDS: '30',
      POLL_INTERVAL_MAX_SECONDS: '60',
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await svc?.close();
});

async function openCase(room: string) {
  const response = svc.create();
  const caseId = response.hitl.case_id as string;
  const sent = await relay.send(`web:${room}`, response);
  expect(sent.status).toBe(201);
  const card = await eventually(() => cardOf(relay.url, room, sent.body.id), 5000, 'the card');
  return { id: sent.body.id as string, caseId, card };
}

const warnLines = (id: string) =>
  logLines
    .map((l) => JSON.parse(l))
    .filter((l) => l.case === id && /submit outcome unknown/.test(l.msg));

it('a submit that hangs past the deadline after the service recorded it: "may have recorded — checking", then the final card', async () => {
  const room = 'timeout-recorded';
  const c = await openCase(room);
  // The service records the decision, then never answers the POST.
  svc.queueSubmit(c.caseId, RECORD_THEN_HANG);
  const tap = await tapWeb(relay.url, room, c.card.id, 'approve');
  expect(tap.body.outcome).toBe('submitted');
  expect(tap.body.text).toBe('Approved. Thank you.');
  const final = await eventually(
    async () => {
      const m = await cardOf(relay.url, room, c.id);
      return m.final ? m : null;
    },
    5000,
    'the final card',
  );
  expect(final.actions).toEqual([]);
  expect(final.status).not.toMatch(/could not reach|checking/i);
  const view = await relay.get(c.id);
  expect(view.status).toBe('completed');
  expect(view.result.action).toBe('approve');
  const kinds = view.history.map((h: any) => h.kind);
  expect(kinds).toEqual(expect.arrayContaining(['tap', 'submit', 'status', 'submit_checked']));
  expect(view.history.find((h: any) => h.kind === 'submit').outcome).toBe('unknown');
  expect(view.history.find((h: any) => h.kind === 'submit_checked').outcome).toBe('recorded');
  // Exactly one POST: a timeout after sending is never repeated.
  expect(svc.seen('submit', c.caseId)).toHaveLength(1);
  const warn = warnLines(c.id);
  expect(warn).toHaveLength(1);
  expect(warn[0]).toMatchObject({ level: 40, outcome: 'unknown', action: 'approve' });
  expect(JSON.stringify(warn[0])).not.toContain(svc.get(c.caseId).submit_token);
});

it('a submit that hangs past the deadline and was not recorded: the buttons come back with a clear line; a later tap works', async () => {
  const room = 'timeout-not-recorded';
  const c = await openCase(room);
  svc.queueSubmit(c.caseId, HANG);
  const tap = await tapWeb(relay.url, room, c.card.id, 'approve');
  expect(tap.body.outcome).toBe('submit_not_recorded');
  expect(tap.body.text).toBe(
    'No answer from the service within 1 s, and so far it has not recorded your decision: nothing was decided. Try again.',
  );
  const card = await eventually(
    async () => {
      const m = await cardOf(relay.url, room, c.id);
      return /not recorded your decision/.test(m.status) ? m : null;
    },
    5000,
    'the not-recorded line',
  );
  expect(card.final).toBe(false);
  expect(card.status).not.toMatch(/could not reach/i);
  expect(card.status).toContain('No answer from the service within 1 s');
  expect(card.actions.map((a: any) => a.action)).toEqual(['approve', 'reject']);
  const view = await relay.get(c.id);
  expect(view.status).toBe('pending');
  expect(view.history.find((h: any) => h.kind === 'submit').outcome).toBe('unknown');
  expect(view.history.find((h: any) => h.kind === 'submit_checked').outcome).toBe('not_recorded');
  expect(warnLines(c.id)).toHaveLength(1);
  expect(svc.seen('submit', c.caseId)).toHaveLength(1);
  // The buttons are back: a later tap submits once more and the case ends.
  const again = await tapWeb(relay.url, room, c.card.id, 'approve');
  expect(again.body.outcome).toBe('submitted');
  expect(svc.seen('submit', c.caseId)).toHaveLength(2);
  await relay.until(c.id, (x) => x.status === 'completed');
});

it('a submit that hangs and whose confirming poll fails too: no buttons, "checking", and a tap sends nothing until a poll tells', async () => {
  const room = 'timeout-unreadable';
  const c = await openCase(room);
  svc.queueSubmit(c.caseId, HANG);
  // Every poll fails (401) until the service is readable again below.
  svc.requireAuth('Bearer not-the-relay');
  try {
    const tap = await tapWeb(relay.url, room, c.card.id, 'approve');
    expect(tap.body.outcome).toBe('submit_unknown');
    expect(tap.body.text).toBe(
      'No answer from the service within 1 s; it may have recorded your decision — checking. The card will say; do not tap again.',
    );
    const card = await eventually(
      async () => {
        const m = await cardOf(relay.url, room, c.id);
        return /checking/.test(m.status) ? m : null;
      },
      5000,
      'the checking line',
    );
    expect(card.status).toContain(
      'No answer from the service within 1 s; it may have recorded your decision — checking.',
    );
    expect(card.actions).toEqual([]);
    // A tap from the old render sends nothing while the outcome is unknown.
    const again = await tapWeb(relay.url, room, c.card.id, 'approve');
    expect(again.body.outcome).toBe('submit_unknown');
    expect(svc.seen('submit', c.caseId)).toHaveLength(1);
    expect((await relay.get(c.id)).status).toBe('pending');
  } finally {
    svc.requireAuth(null);
  }
  // The service is readable again; the watcher's next look (pulled forward here rather than
  // waited for) reads the case open: the buttons come back with the line saying so.
  const store = relay.relay.services.store;
  const stored = (await store.getCase(c.id))!;
  await store.updateWatch(c.id, {
    next_check_at: Date.now(),
    etag: stored.etag,
    poll_failures: stored.poll_failures,
  });
  await eventually(
    async () => {
      const m = await cardOf(relay.url, room, c.id);
      return m.actions.length === 2 && /not recorded your decision/.test(m.status) ? m : null;
    },
    10_000,
    'the buttons back',
  );
  const view = await relay.get(c.id);
  expect(view.history.filter((h: any) => h.kind === 'submit_checked')).toEqual([
    expect.objectContaining({ outcome: 'not_recorded' }),
  ]);
  expect(
    view.history.find((h: any) => h.kind === 'tap_refused' && /no known outcome/.test(h.reason)),
  ).toBeTruthy();
  expect(svc.seen('submit', c.caseId)).toHaveLength(1);
});
