import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallback } from '../../src/hitl-service/index.ts';
import { createLogger } from '../../src/log.ts';
import {
  act,
  createCase,
  type DemoServer,
  inlineSubmit,
  type Json,
  startDemoServer,
  submitBody,
} from '../demo/helpers.ts';

const SECRET = 'demo-callback-secret-for-tests';

interface Received {
  raw: string;
  signature: string | undefined;
}

/** An agent's webhook receiver; `plan` gives the status to answer for each request in turn. */
async function receiver(plan: number[] = []) {
  const received: Received[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      received.push({ raw, signature: req.headers['x-hitl-signature'] as string | undefined });
      res.statusCode = plan[received.length - 1] ?? 200;
      res.end();
      for (const w of waiters.filter((x) => received.length >= x.n)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/hitl`,
    received,
    waitFor: (n: number) =>
      received.length >= n
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What an agent does: verify the HMAC of the raw body before believing it. */
function verified(r: Received): boolean {
  const expected = `sha256=${createHmac('sha256', SECRET).update(r.raw).digest('hex')}`;
  const given = Buffer.from(r.signature ?? '');
  return given.length === expected.length && timingSafeEqual(given, Buffer.from(expected));
}

/** The demo service's log: each callback delivery says when it is queued and how it ends. */
const logged: Array<{ msg: string; case_id?: string }> = [];
const log = createLogger({
  level: 'debug',
  format: 'json',
  destination: { write: (line) => void logged.push(JSON.parse(line)) },
});
const ENDS = new Set(['demo callback sent', 'demo callback refused', 'demo callback given up']);
const deliveryLines = (caseId: string) => logged.filter((l) => l.case_id === caseId);

/** Resolves once the callback delivery for `caseId` has ended (sent, refused or given up). */
async function delivered(caseId: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const end = deliveryLines(caseId).find((l) => ENDS.has(l.msg));
    if (end) return end.msg;
    if (Date.now() > deadline) throw new Error(`the callback of ${caseId} never ended`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer({ callbackSecret: SECRET, log });
});
afterAll(() => server.close());

describe('callbacks (spec 9)', () => {
  it('POSTs review.completed with a verifiable X-HITL-Signature', async () => {
    const hook = await receiver();
    const { hitl } = await createCase(server.base, 'approval', true, {
      hitl_callback_url: hook.url,
    });
    expect(hitl.callback_url).toBe(hook.url);
    await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'));
    await hook.waitFor(1);
    const [first] = hook.received;
    expect(verified(first!)).toBe(true);
    expect(first!.signature).toBe(signCallback(first!.raw, SECRET));
    const body = JSON.parse(first!.raw) as Json;
    expect(body).toMatchObject({
      event: 'review.completed',
      case_id: hitl.case_id,
      result: { action: 'approve', data: {} },
    });
    expect(body.completed_at).toBeTruthy();
    // A tampered body no longer matches its signature.
    expect(verified({ ...first!, raw: first!.raw.replace('approve', 'reject') })).toBe(false);
    await hook.close();
  });

  it('sends review.cancelled and review.expired too', async () => {
    const hook = await receiver();
    const a = await createCase(server.base, 'confirmation', false, { hitl_callback_url: hook.url });
    const b = await createCase(server.base, 'escalation', false, { hitl_callback_url: hook.url });
    await act(server.base, a.hitl.case_id, { step: 'cancel', reason: 'duplicate' });
    await act(server.base, b.hitl.case_id, { step: 'expire' });
    await hook.waitFor(2);
    const events = hook.received.map((r) => JSON.parse(r.raw) as Json);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          event: 'review.cancelled',
          case_id: a.hitl.case_id,
          reason: 'duplicate',
        }),
        expect.objectContaining({
          event: 'review.expired',
          case_id: b.hitl.case_id,
          default_action: 'abort',
        }),
      ]),
    );
    expect(hook.received.every(verified)).toBe(true);
    await hook.close();
  });

  it('retries a failing receiver, up to 3 attempts in all', async () => {
    const flaky = await receiver([500, 503, 200]);
    const a = await createCase(server.base, 'approval', false, { hitl_callback_url: flaky.url });
    await act(server.base, a.hitl.case_id, { step: 'respond', action: 'approve' });
    await flaky.waitFor(3);
    expect(new Set(flaky.received.map((r) => r.raw)).size).toBe(1);
    await flaky.close();

    const down = await receiver([500, 500, 500, 500]);
    const b = await createCase(server.base, 'approval', false, { hitl_callback_url: down.url });
    await act(server.base, b.hitl.case_id, { step: 'respond', action: 'reject' });
    // The delivery has ended: every attempt it made has reached the receiver.
    expect(await delivered(b.hitl.case_id)).toBe('demo callback given up');
    expect(down.received).toHaveLength(3);
    await down.close();
  });

  it('sends nothing for a case without hitl_callback_url, and no retry for a 4xx', async () => {
    const hook = await receiver([404]);
    const a = await createCase(server.base, 'approval', false, { hitl_callback_url: hook.url });
    await act(server.base, a.hitl.case_id, { step: 'respond', action: 'approve' });
    // The delivery has ended after its one attempt (a retry would have come before the end).
    expect(await delivered(a.hitl.case_id)).toBe('demo callback refused');
    expect(hook.received).toHaveLength(1);
    const b = await createCase(server.base, 'approval', false);
    expect(b.hitl.callback_url).toBeNull();
    await act(server.base, b.hitl.case_id, { step: 'respond', action: 'approve' });
    // The completion is published before act() is answered, and a callback is queued right then.
    const messages = deliveryLines(b.hitl.case_id).map((l) => l.msg);
    expect(messages).toContain('demo case event');
    expect(messages.filter((m) => m.startsWith('demo callback'))).toEqual([]);
    await hook.close();
  });
});
