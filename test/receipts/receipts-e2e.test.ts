/**
 * Receipts end to end: a real relay (SQLite) and the demo HITL service; each way a case can end
 * yields a receipt that `hitl-relay verify` accepts, and the check against the relay fails once a
 * stored history row is altered.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { main } from '../../src/cli/main.ts';
import { tapWhenPosted } from '../client/helpers.ts';
import { type DemoHandle, type RelayHandle, startDemo, startRelay } from '../helpers/relay-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-receipts-'));
let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]) {
  let out = '';
  const code = await main(args, {
    io: {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        out += t;
      },
    },
    env: { RELAY_URL: relay.url },
    stdin: async () => '',
  });
  return { code, out };
}

async function receipt(id: string) {
  const res = await request(`${relay.url}/v1/cases/${id}/receipt`);
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

async function finalReceipt(id: string) {
  await relay.until(id, (c) => c.final);
  const r = await receipt(id);
  expect(r.status).toBe(200);
  const path = join(dir, `${id}.json`);
  writeFileSync(path, JSON.stringify(r.body, null, 2));
  return { receipt: r.body, path };
}

describe('decision receipts', () => {
  it('an open case has none yet (409); an inline approve gets one that verifies, online too', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('web:receipts-inline', response);
    expect((await receipt(sent.body.id)).status).toBe(409);
    await tapWhenPosted(relay.url, 'receipts-inline', 'approve');
    const { receipt: r, path } = await finalReceipt(sent.body.id);
    expect(r.receipt.case).toMatchObject({
      id: sent.body.id,
      status: 'completed',
      confirmed: true,
    });
    expect(r.receipt.actions).toEqual(['approve', 'reject']);
    expect(r.receipt.actors.map((a: any) => [a.platform, a.user_id, a.kind])).toContainEqual([
      'web',
      'ann',
      'tap',
    ]);
    expect(JSON.stringify(r)).not.toContain(response.hitl.submit_token);
    // CLAIM-2 submitted_by is written down as a claim (spec v0.9 §7.5), never as identity.
    expect(r.receipt.decision.submitted_by).toMatchObject({ platform_user_id: 'ann' });
    expect(r.receipt.decision.submitted_by_is).toMatch(/^a claim, not verified identity/);
    const keys = (await (
      await request(`${relay.url}/.well-known/hitl-relay/receipt-keys.json`)
    ).body.json()) as any;
    expect(keys.keys[0].kid).toBe(r.signature.key_id);
    // Offline without a trust anchor: intact, but the signer is not verified (exit 3).
    expect(await cli(['verify', path])).toMatchObject({
      code: 3,
      out: expect.stringMatching(/^UNVERIFIED: signature consistent with the embedded key/),
    });
    // --key-id=ID: a key id is base64url and may start with '-', which the spaced form reads as an option.
    expect(await cli(['verify', path, `--key-id=${keys.keys[0].kid}`])).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^valid: /),
    });
    expect(await cli(['verify', path, '--relay', '--case', sent.body.id])).toMatchObject({
      code: 0,
    });
    // Asked again, the stored receipt comes back unchanged (append-only).
    expect((await receipt(sent.body.id)).body).toEqual(r);
  });

  it('a browser decision, a cancel and an expiry each get a verifiable receipt', async () => {
    const ends: Array<[string, Record<string, unknown>, string]> = [
      ['approval', { step: 'respond', action: 'reject' }, 'completed'],
      ['confirmation', { step: 'cancel', reason: 'not needed' }, 'cancelled'],
      ['approval', { step: 'expire' }, 'expired'],
    ];
    for (const [type, step, status] of ends) {
      const response = await demo.create(type, false);
      const sent = await relay.send(`web:receipts-${status}`, response);
      await demo.act(response.hitl.case_id, step);
      const { receipt: r, path } = await finalReceipt(sent.body.id);
      expect(r.receipt.case.status).toBe(status);
      expect(r.receipt.case.confirmed).toBe(true);
      expect(await cli(['verify', path, '--relay'])).toMatchObject({ code: 0 });
    }
  });

  it('fails when a byte of the receipt file or of the stored history is altered', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('web:receipts-tamper', response);
    await tapWhenPosted(relay.url, 'receipts-tamper', 'reject');
    const { receipt: r, path } = await finalReceipt(sent.body.id);

    const forged = structuredClone(r);
    forged.receipt.decision.result.action = 'approve';
    writeFileSync(path, JSON.stringify(forged));
    expect(await cli(['verify', path])).toMatchObject({
      code: 1,
      out: expect.stringMatching(/^INVALID: signature/),
    });

    writeFileSync(path, JSON.stringify(r));
    const db = new Database(join(relay.dataDir, 'hitl-relay.sqlite'));
    try {
      const row = db
        .prepare("SELECT seq, detail FROM history WHERE case_id = ? AND kind = 'tap'")
        .get(sent.body.id) as { seq: number; detail: string };
      const changed = db
        .prepare('UPDATE history SET detail = ? WHERE seq = ?')
        .run(row.detail.replace('"ann"', '"mallory"'), row.seq);
      expect([changed.changes, row.detail]).toEqual([1, expect.stringContaining('"ann"')]);
    } finally {
      db.close();
    }
    expect(await cli(['verify', path, `--key-id=${r.signature.key_id}`])).toMatchObject({
      code: 0,
    });
    expect(await cli(['verify', path, '--relay'])).toMatchObject({
      code: 1,
      out: expect.stringMatching(/stored history differs/),
    });
  });
});
