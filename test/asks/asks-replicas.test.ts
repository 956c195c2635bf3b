/**
 * The asks service keeps its cases in the replica's own SQLite file, not in DATABASE_URL, so with a
 * shared store (replicas) the relay says so loudly: a warning at start-up and a note on /readyz
 * that does not make the relay unready. Without DATABASE_URL there is no note.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ASKS_REPLICAS_NOTE } from '../../src/asks/mount.ts';
import { logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle | undefined;
afterEach(async () => {
  await relay?.stop();
  relay = undefined;
});

async function readyz(url: string) {
  const res = await request(`${url}/readyz`);
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

describe('asks with replicas', () => {
  it('DATABASE_URL set: a start-up warning and a /readyz note, still ready', async () => {
    const before = logLines.length;
    // The store itself is the test's SQLite one; only the configuration says "shared store".
    relay = await startRelay({
      adapters: [createWebAdapter()],
      env: { DATABASE_URL: 'postgres://relay:s3cretpw@127.0.0.1:5432/relay' },
    });
    const r = await readyz(relay.url);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ready: true, notes: { asks: ASKS_REPLICAS_NOTE } });
    expect(r.body.parts.asks).toBeUndefined();
    const warned = logLines
      .slice(before)
      .map((l) => JSON.parse(l))
      .find((l) => l.part === 'asks');
    expect(warned).toMatchObject({ level: 40 });
    expect(warned.msg).toContain('route POST /v1/asks and /asks/* to one replica');
    expect(logLines.slice(before).join('\n')).not.toContain('s3cretpw');
  });

  it('without DATABASE_URL: no note', async () => {
    relay = await startRelay({ adapters: [createWebAdapter()] });
    const r = await readyz(relay.url);
    expect(r.body.ready).toBe(true);
    expect(r.body.notes).toBeUndefined();
  });
});
