/**
 * A v0.9 service (the spec double speaking 0.9) and the v0.9 poll variants on the agent side
 * (v0.9 §8): a body that breaks its status's variant is a watch error with the reason, never a
 * status change; a 0.8 case is read as 0.8 allows; the direct moves pending -> completed and
 * in_progress -> expired are taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { cardOf } from '../reliability/web.ts';

let double: SpecDouble;
let relay: RelayHandle;
let room = 0;

beforeAll(async () => {
  double = await startSpecDouble();
  relay = await startRelay({ adapters: [createWebAdapter()], watcher: { expiryGraceMs: 0 } });
});
afterAll(async () => {
  await relay?.stop();
  await double?.close();
});

async function send(version: '0.8' | '0.9') {
  const body = double.create({ version, hitl: { default_action: 'skip' } });
  const name = `pv${++room}`;
  const res = await relay.send(`web:${name}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await eventually(() => cardOf(relay.url, name, res.body.id), 10_000, 'the card');
  return { id: res.body.id as string, caseId: body.hitl.case_id as string, room: name };
}

const at = () => new Date().toISOString();

describe('v0.9 poll variants', () => {
  it('POLLV-3 a v0.9 completed poll without completed_at is a watch error with the reason, no result', async () => {
    const c = await send('0.9');
    const broken = {
      status: 200,
      body: { status: 'completed', case_id: c.caseId, result: { action: 'approve', data: {} } },
    };
    double.queuePoll(c.caseId, broken, broken, broken);
    const v = await relay.until(c.id, (x) => x.watch.state !== 'ok');
    expect(v.watch.state).toBe('invalid');
    expect(v.watch.last_error).toContain('completed without completed_at');
    expect(v.status).toBe('pending');
    expect(v.result).toBeNull();
    // The service's honest answer afterwards is taken: the watch recovers.
    double.complete(c.caseId, 'reject');
    const done = await relay.until(c.id, (x) => x.status === 'completed', 20_000);
    expect(done.result.action).toBe('reject');
    expect(done.watch.state).toBe('ok');
  });

  it('POLLV-4 an open v0.9 status carrying a result, and an expiry without default_action, change nothing', async () => {
    const c = await send('0.9');
    const withResult = {
      status: 200,
      body: { status: 'opened', case_id: c.caseId, result: { action: 'approve', data: {} } },
    };
    double.queuePoll(c.caseId, withResult, withResult, withResult);
    const v = await relay.until(c.id, (x) => x.watch.state !== 'ok');
    expect(v.watch.last_error).toContain('opened with result');
    expect(v.status).toBe('pending');
    const e = await send('0.9');
    const bare = { status: 200, body: { status: 'expired', case_id: e.caseId, expired_at: at() } };
    double.queuePoll(e.caseId, bare, bare, bare);
    const w = await relay.until(e.id, (x) => x.watch.state !== 'ok');
    expect(w.watch.last_error).toContain('expired without default_action');
    expect(w.status).toBe('pending');
  });

  it('POLLV-5 a 0.8 case is read as 0.8 allows: completed without completed_at is its answer', async () => {
    const c = await send('0.8');
    const body = {
      status: 'completed',
      case_id: c.caseId,
      result: { action: 'approve', data: {} },
    };
    double.queuePoll(c.caseId, { status: 200, body });
    const v = await relay.until(c.id, (x) => x.status === 'completed');
    expect(v.result.action).toBe('approve');
  });

  it('POLLV-6 direct moves: pending -> completed and in_progress -> expired are taken, cancelled with cancelled_at', async () => {
    const c = await send('0.9');
    double.complete(c.caseId, 'approve');
    const done = await relay.until(c.id, (x) => x.status === 'completed');
    expect(done.history.map((h: any) => h.kind === 'status' && `${h.from}->${h.to}`)).toContain(
      'pending->completed',
    );
    const e = await send('0.9');
    double.setStatus(e.caseId, 'in_progress');
    await relay.until(e.id, (x) => x.status === 'in_progress');
    double.expire(e.caseId);
    const expired = await relay.until(e.id, (x) => x.status === 'expired');
    expect(expired.default_action).toBe('skip');
    expect(expired.history.map((h: any) => h.kind === 'status' && `${h.from}->${h.to}`)).toContain(
      'in_progress->expired',
    );
    const k = await send('0.9');
    double.cancel(k.caseId, 'withdrawn');
    const cancelled = await relay.until(k.id, (x) => x.status === 'cancelled');
    expect(cancelled.reason).toBe('withdrawn');
    expect(cancelled.watch.state).toBe('ok');
  });
});
