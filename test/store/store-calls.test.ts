/**
 * Issue 22: what one step costs the store. A counting proxy wraps the real store (SQLite, then
 * PostgreSQL) under a real relay with the web chat; a fake HITL service (node:http, the protocol's
 * wire format) answers the submit and the confirming poll. Counted per intake (POST /v1/cases until
 * the card is posted) and per tap (web chat tap -> submit -> confirm -> card edited). The numbers
 * are asserted, so a change that adds a store round trip to either path fails here.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { eventually, startRelay } from '../helpers/relay-env.ts';
import { countStore } from '../helpers/store-counter.ts';
import { tempDirs } from '../helpers/temp.ts';
import { cardOf, tapWeb } from '../reliability/web.ts';

const temp = tempDirs();

const service = await startFastService();
afterAll(() => service.stop());

async function measure(open: () => Promise<Store>) {
  const inner = await open();
  const counted = countStore(inner);
  const relay = await startRelay({
    adapters: [createWebAdapter()],
    store: counted.store,
    // No poll falls due and no reconcile pass runs while a step is counted.
    env: { POLL_INTERVAL_MIN_SECONDS: '3600', POLL_INTERVAL_MAX_SECONDS: '7200' },
    reconcileEveryMs: 3_600_000,
  });
  try {
    const room = `calls-${Math.random().toString(36).slice(2, 8)}`;
    // One case first, so nothing counted below is a first-time cost (prepared statements, keys).
    const warm = await relay.send(`web:${room}`, service.create(`warm-${room}`));
    expect(warm.status).toBe(201);

    counted.reset();
    const sent = await relay.send(`web:${room}`, service.create(`case-${room}`));
    expect(sent.status).toBe(201);
    const intake = counted.summary();

    const card = await eventually(() => cardOf(relay.url, room, sent.body.id), 5000, 'the card');
    counted.reset();
    const tap = await tapWeb(relay.url, room, card.id, 'approve');
    expect(tap.body.outcome).toBe('submitted');
    // The card edit runs after the reply: counted until the message row says it shows the final case.
    await eventually(
      async () => {
        const c = await inner.getCase(sent.body.id);
        const [m] = await inner.listMessages(sent.body.id);
        return c?.status === 'completed' && m?.rendered_version === c.version ? true : undefined;
      },
      5000,
      'the final card',
    );
    // The decision receipt is issued in the background too; let it land before counting.
    await eventually(
      async () => ((await inner.kv.get(`receipt:${sent.body.id}`)) ? true : undefined),
      5000,
      'the receipt',
    );
    const tapped = counted.summary();
    return { intake, tap: tapped };
  } finally {
    await relay.stop();
  }
}

function show(name: string, r: Awaited<ReturnType<typeof measure>>) {
  console.log(
    `${name} intake: ${r.intake.calls} calls, ${r.intake.commits} commits (+${r.intake.adapterCalls} web chat kv): ${r.intake.methods.join(' ')}`,
  );
  console.log(
    `${name} tap: ${r.tap.calls} calls, ${r.tap.commits} commits (+${r.tap.adapterCalls} web chat kv): ${r.tap.methods.join(' ')}`,
  );
}

/**
 * Before issue 22 (4a89d67): intake 13 calls / 5 commits, tap 17 calls / 8 commits (both stores).
 * Now an intake is the case with its reservations, first row and posting leases (1 commit) and
 * the posted state with its row and lease release (1 commit). A tap to its confirmed outcome is
 * 4 calls and 2 commits: find the case and its message, claim + tap row, then the confirmed status
 * + submit and status rows + claim release (+ notify outbox) in one write; after it, the card edit
 * (its messages, then their rendered version), then the decision receipt (history, then stored once).
 */
function expectGoals(r: Awaited<ReturnType<typeof measure>>, roomSignals: number) {
  expect(r.intake.methods).toEqual(['createCase', 'updateMessage']);
  expect(r.intake).toMatchObject({ calls: 2, commits: 2 });
  // The web chat's post: the count hint read, then the slot claimed with the message, the count
  // and the room version in the same write (was 5 calls: get, setIfAbsent, 2 sets, the version);
  // on PostgreSQL the room's change signal to the other replicas (publishChange) is one more.
  expect(r.intake.adapterCalls).toBe(2 + roomSignals);
  const tapPath = ['getCaseByKey', 'listMessages', 'claimCase', 'updateCase'];
  const cardEdit = ['listMessages', 'updateMessage'];
  const receipt = ['listHistory', 'kv.setIfAbsent(receipt)'];
  // The receipt waits for the card edit: its signing and store calls are off the edit's path.
  expect(r.tap.methods).toEqual([...tapPath, ...cardEdit, ...receipt]);
  expect(r.tap).toMatchObject({ calls: 8, commits: 4 });
}

describe('store calls per step', () => {
  it('SQLite: intake 2 calls / 2 commits; tap to its confirmed outcome 4 calls / 2 commits', async () => {
    const dir = temp.make('hitl-relay-calls-');
    const r = await measure(async () => openSqliteStore(join(dir, 'store.sqlite')));
    show('sqlite', r);
    expectGoals(r, 0);
  });

  it('PostgreSQL: the same counts', async () => {
    const url = await freshSchemaUrl();
    const r = await measure(() => openPostgresStore(url));
    show('postgres', r);
    expectGoals(r, 1);
  });
});
