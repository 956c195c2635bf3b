/**
 * Asks ride the ordinary case machinery: the typed answer reaches the agent's notify_url webhook,
 * and an ask survives a restart of the relay (its service keeps its cases in DATA_DIR), answered after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { KINDS } from '../asks/fixtures.ts';
import { tinyServer } from '../client/helpers.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function post(base: string, path: string, body: unknown) {
  const res = await request(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

async function answerIn(relay: RelayHandle, room: string, action: string, data: unknown) {
  const m = await eventually(async () => {
    const res = await request(`${relay.url}/web/api/rooms/${room}/messages`);
    return ((await res.body.json()) as any[]).find((x) => x.ask);
  });
  return post(relay.url, `/web/api/rooms/${room}/messages/${m.id}/actions/${action}`, {
    user: { id: 'ann', name: 'Ann' },
    data,
  });
}

it('delivers the typed answer to notify_url', async () => {
  const received: any[] = [];
  const hook = await tinyServer((_req, body, res) => {
    received.push(JSON.parse(body.toString('utf8')));
    res.writeHead(200).end();
  });
  const relay = await startRelay({ adapters: [createWebAdapter()] });
  try {
    const fx = KINDS['context.form'];
    const created = await post(relay.url, '/v1/asks', {
      target: 'web:notify',
      content: fx.content,
      notify_url: `${hook.url}/hook`,
    });
    expect(created.status).toBe(202);
    expect((await answerIn(relay, 'notify', 'submit', fx.answer.data)).body.outcome).toBe(
      'submitted',
    );
    const delivered = await eventually(async () => received.find((r) => r.final));
    expect(delivered).toMatchObject({
      id: created.body.relay.id,
      status: 'completed',
      result: { action: 'submit', data: fx.result },
    });
  } finally {
    await relay.stop();
    await hook.close();
  }
});

it('keeps an open ask across a restart and takes its answer afterwards', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hitl-asks-restart-'));
  dirs.push(dataDir);
  const first = await startRelay({ adapters: [createWebAdapter()], dataDir });
  const fx = KINDS['edit.tool_args'];
  const created = await post(first.url, '/v1/asks', { target: 'web:restart', content: fx.content });
  expect(created.status).toBe(202);
  await first.stop();

  // The same port and data, as a restarted process has: the hitl URLs stay valid.
  const port = new URL(first.url).port;
  const second = await startRelay({
    adapters: [createWebAdapter()],
    dataDir,
    env: { PORT: port },
  });
  try {
    const id = created.body.relay.id;
    const before = await request(`${second.url}/v1/asks/${id}`);
    expect(((await before.body.json()) as any).status).toBe('pending');
    expect((await answerIn(second, 'restart', 'submit', fx.answer.data)).body.outcome).toBe(
      'submitted',
    );
    const done = await request(`${second.url}/v1/asks/${id}/wait?timeout=10`);
    expect(await done.body.json()).toMatchObject({ status: 'completed', answer: fx.result });
  } finally {
    await second.stop();
  }
});
