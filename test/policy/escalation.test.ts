/**
 * Escalation ladders with a fake clock: a route's case goes to the owner, then the team after
 * 15 min, on-call after 1 h and management after 2 h; each step posts once, survives a restart, and shows in the case
 * view and the history. Earlier cards stay live.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-escalation-'));
let clock = Date.now();
const now = () => clock;
let demo: DemoHandle;
let relay: RelayHandle;

const routes = {
  ladder: {
    targets: ['web:owner'],
    escalation: {
      steps: [
        { after_seconds: 900, targets: ['web:team'] },
        { after_seconds: 3600, targets: ['web:oncall'] },
        { after_seconds: 7200, targets: ['web:management'] },
      ],
    },
  },
};
const start = () =>
  startRelay({ adapters: [createWebAdapter()], dataDir, now, configFile: { routes } });

beforeAll(async () => {
  demo = await startDemo();
  relay = await start();
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function cards(room: string, caseId: string): Promise<any[]> {
  const res = await request(`${relay.url}/web/api/rooms/${room}/messages`);
  return ((await res.body.json()) as any[]).filter((m) => m.case === caseId);
}

describe('escalation ladder', () => {
  it('posts each step once when it is due, across a restart, and the agent sees the step', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('route:ladder', response);
    expect(sent.status).toBe(201);
    const id = sent.body.id;
    await eventually(async () => (await cards('owner', id)).length === 1);
    expect(await cards('team', id)).toEqual([]);
    expect((await relay.get(id)).escalation).toMatchObject({ step: 0, of: 3 });

    clock += 901_000;
    await eventually(async () => (await cards('team', id)).length === 1, 10_000, 'step 1');
    expect(await cards('oncall', id)).toEqual([]);
    expect((await relay.get(id)).escalation).toMatchObject({ step: 1, of: 3 });

    await relay.stop();
    clock += 3600_000;
    relay = await start();
    await eventually(async () => (await cards('oncall', id)).length === 1, 10_000, 'step 2');
    expect(await cards('management', id)).toEqual([]);
    clock += 3600_000;
    await eventually(async () => (await cards('management', id)).length === 1, 10_000, 'step 3');
    const view = await relay.get(id);
    expect(view.escalation).toMatchObject({ step: 3, of: 3, next_at: null });
    expect(view.history.filter((h: any) => h.kind === 'escalated').map((h: any) => h.step)).toEqual(
      [1, 2, 3],
    );
    for (const room of ['owner', 'team', 'oncall', 'management'])
      expect(await cards(room, id)).toHaveLength(1);

    // A tap on the first card still decides, and every card ends.
    const [first] = await cards('owner', id);
    await request(`${relay.url}/web/api/rooms/owner/messages/${first.id}/actions/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
    });
    for (const room of ['owner', 'team', 'oncall', 'management'])
      await eventually(
        async () => (await cards(room, id))[0]?.final,
        10_000,
        `final card in ${room}`,
      );
  });
});
