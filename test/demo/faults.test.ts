import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCase,
  type DemoServer,
  inlineSubmit,
  type Json,
  poll,
  startDemoServer,
  submitBody,
} from './helpers.ts';

let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer();
});
afterAll(() => server.close());

async function fault(body: Json): Promise<number> {
  const res = await fetch(`${server.base}/api/_test/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.status;
}

describe('injected faults', () => {
  it('answers the next `count` status requests with the fault, then normally again', async () => {
    const { hitl } = await createCase(server.base, 'approval', false);
    expect(await fault({ route: 'status', kind: '500', count: 2 })).toBe(201);
    expect((await poll(hitl.poll_url)).status).toBe(500);
    expect((await poll(hitl.poll_url)).status).toBe(500);
    expect((await poll(hitl.poll_url)).status).toBe(200);
  });

  it('503 and 429 carry Retry-After; 429_no_retry_after does not', async () => {
    const { hitl } = await createCase(server.base, 'approval', false);
    await fault({ route: 'status', kind: '503', count: 1 });
    await fault({ route: 'status', kind: '429', count: 1 });
    await fault({ route: 'status', kind: '429_no_retry_after', count: 1 });
    const a = await poll(hitl.poll_url);
    expect([a.status, a.headers.get('retry-after')]).toEqual([503, '1']);
    const b = await poll(hitl.poll_url);
    expect([b.status, b.headers.get('retry-after'), b.json!.error]).toEqual([
      429,
      '1',
      'rate_limited',
    ]);
    const c = await poll(hitl.poll_url);
    expect([c.status, c.headers.get('retry-after')]).toEqual([429, null]);
  });

  it('malformed_json and wrong_content_type break the body, not the status', async () => {
    const { hitl } = await createCase(server.base, 'approval', false);
    await fault({ route: 'status', kind: 'malformed_json', count: 1 });
    await fault({ route: 'status', kind: 'wrong_content_type', count: 1 });
    const bad = await fetch(hitl.poll_url);
    expect(bad.status).toBe(200);
    expect(bad.headers.get('content-type')).toContain('application/json');
    await expect(bad.json()).rejects.toThrow();
    const html = await fetch(hitl.poll_url);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    await html.text();
  });

  it('truncated cuts the body short and reset drops the connection', async () => {
    const { hitl } = await createCase(server.base, 'approval', false);
    await fault({ route: 'status', kind: 'truncated', count: 1 });
    await fault({ route: 'status', kind: 'reset', count: 1 });
    const cut = await request(hitl.poll_url);
    expect(cut.statusCode).toBe(200);
    await expect(cut.body.text()).rejects.toThrow();
    await expect(request(hitl.poll_url)).rejects.toThrow();
    expect((await poll(hitl.poll_url)).status).toBe(200);
  });

  it('slow delays the answer, then answers normally', async () => {
    const { hitl } = await createCase(server.base, 'approval', false);
    await fault({ route: 'status', kind: 'slow', count: 1, delay_ms: 300 });
    const res = await poll(hitl.poll_url);
    expect(res.status).toBe(200);
    expect(res.json!.status).toBe('pending');
  });

  it('respond faults do not touch the case and are recorded in submissions', async () => {
    const { hitl } = await createCase(server.base, 'confirmation', true);
    server.demo.inject({ route: 'respond', kind: '503', count: 1 });
    server.demo.inject({ route: 'respond', kind: 'reset', count: 1 });
    expect(
      (await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('confirm'))).status,
    ).toBe(503);
    await expect(
      request(hitl.submit_url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${hitl.submit_token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(submitBody('confirm')),
      }),
    ).rejects.toThrow();
    expect((await poll(hitl.poll_url)).json!.status).toBe('pending');
    expect(
      (await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('confirm'))).status,
    ).toBe(200);
    const mine = (await server.demo.submissions()).filter((s) => s.case_id === hitl.case_id);
    expect(mine.map((s) => [s.fault ?? null, s.status, s.bearer_valid])).toEqual([
      ['503', 503, true],
      ['reset', 0, true],
      [null, 200, true],
    ]);
  });

  it('create and events faults', async () => {
    await fault({ route: 'create', kind: '500', count: 1 });
    const res = await fetch(`${server.base}/api/reviews?type=approval`, { method: 'POST' });
    expect(res.status).toBe(500);
    const { hitl } = await createCase(server.base, 'approval', false);
    await fault({ route: 'events', kind: '503', count: 1 });
    await fault({ route: 'events', kind: 'truncated', count: 1 });
    expect((await fetch(hitl.events_url)).status).toBe(503);
    const cut = await fetch(hitl.events_url);
    expect(cut.headers.get('content-type')).toContain('text/event-stream');
    expect(await cut.text()).not.toMatch(/\n\n$/);
  });

  it('refuses a bad fault', async () => {
    expect(await fault({ route: 'status', kind: 'explode', count: 1 })).toBe(400);
    expect(await fault({ route: 'nowhere', kind: '500', count: 1 })).toBe(400);
  });
});

describe('test controls are off by default', () => {
  it('serves no /api/_test routes without testControls', async () => {
    const { createDemoService } = await import('../../src/demo/index.ts');
    const demo = createDemoService();
    const res = await demo.app.request('/api/_test/submissions');
    expect(res.status).toBe(404);
    const faults = await demo.app.request('/api/_test/faults', { method: 'POST', body: '{}' });
    expect(faults.status).toBe(404);
    demo.close();
  });
});
