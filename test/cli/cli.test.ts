/** The command line against a real relay: send, status, cases; exit codes and field-naming errors. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { main } from '../../src/cli/main.ts';
import { roomMessages, tapWhenPosted } from '../client/helpers.ts';
import { startSpecDouble } from '../fakes/spec-double.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-cli-'));
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

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** Runs the CLI in this process with its real commands; the relay is reached over HTTP. */
async function cli(args: string[], o: { env?: Record<string, string>; stdin?: string } = {}) {
  let out = '';
  let err = '';
  const code = await main(args, {
    io: {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    },
    env: { RELAY_URL: relay.url, ...o.env },
    stdin: async () => o.stdin ?? '',
  });
  return { code, out, err };
}

/** Runs bin/hitl-relay.js as a separate process, as a shell would. */
function bin(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, ['bin/hitl-relay.js', ...args], {
      env: { ...process.env, RELAY_URL: relay.url, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

describe('hitl-relay send', () => {
  it('exits non-zero on a malformed file and names the failing field (real binary)', async () => {
    const body = await demo.create('approval', true);
    body.hitl.poll_url = 'not a url';
    delete body.hitl.expires_at;
    const r = await bin(['send', '--to', 'web:cli', file('bad.json', body)]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('response.hitl.poll_url: must be an absolute http(s) URL');
    expect(r.err).toMatch(/response\.hitl\.expires_at: /);
    expect(r.out).toBe('');
    // Nothing reached the relay.
    expect((await cli(['cases', '--json'])).out).not.toContain(body.hitl.case_id);
  });

  it('sends a 202 body and prints the case; --json prints the case view (real binary)', async () => {
    const body = await demo.create('approval', true);
    const r = await bin(['send', '--to', 'web:cli', '--json', file('ok.json', body)]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const view = JSON.parse(r.out);
    expect(view).toMatchObject({
      case_id: body.hitl.case_id,
      target: 'web:cli',
      status: 'pending',
    });
    const text = await cli(['send', '--to', 'web:cli', file('ok.json', body)]);
    expect(text.code).toBe(0);
    expect(text.out).toContain(`${view.id}  pending  approval  `);
    expect(text.out).toContain('message:  web:cli posted');
  });

  it('reads a bare hitl object from standard input, with labels and notify settings', async () => {
    const body = await demo.create('confirmation', true);
    const r = await cli(
      ['send', '--to', 'web:cli', '--label', 'run=7', '--notify-on', 'all', '--json', '-'],
      { stdin: JSON.stringify(body.hitl) },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ labels: { run: '7' }, case_id: body.hitl.case_id });
  });

  it('AUTH-8 --service-header gives the service credentials; they are used on poll and never printed', async () => {
    const double = await startSpecDouble();
    try {
      double.requireAuth('Bearer cli-service-key-0123456789');
      const body = double.create();
      const r = await cli([
        'send',
        '--to',
        'web:cli',
        '--service-header',
        'Authorization: Bearer cli-service-key-0123456789',
        '--json',
        file('svc.json', body),
      ]);
      expect(r.code).toBe(0);
      expect(r.out).not.toContain('cli-service-key');
      const id = JSON.parse(r.out).id;
      await eventually(async () => double.seen('poll', body.hitl.case_id).length > 0);
      expect(double.seen('poll', body.hitl.case_id)[0]!.headers.authorization).toBe(
        'Bearer cli-service-key-0123456789',
      );
      expect((await relay.get(id)).watch.state).toBe('ok');
      const bad = await cli([
        'send',
        '--to',
        'web:cli',
        '--service-header',
        'nocolon',
        file('svc.json', body),
      ]);
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('--service-header');
    } finally {
      await double.close();
    }
  });

  it('names the field in every refusal: the file, the options, the relay', async () => {
    const notJson = await cli(['send', '--to', 'web:cli', file('x.json', '{"status":')]);
    expect(notJson).toMatchObject({ code: 1 });
    expect(notJson.err).toMatch(/x\.json is not JSON/);
    const bareBad = await cli(['send', '--to', 'web:cli', '-'], { stdin: '{"case_id":"a b"}' });
    expect(bareBad.code).toBe(1);
    expect(bareBad.err).toContain('hitl.case_id: must be URL-safe');
    const noTarget = await cli(['send', file('y.json', {})]);
    expect(noTarget).toMatchObject({ code: 2 });
    expect(noTarget.err).toContain('--to: is required');
    const badOption = await cli(['send', '--to', 'web:cli', '--bogus']);
    expect(badOption.code).toBe(2);
    expect(badOption.err).toContain("Unknown option '--bogus'");
    const body = await demo.create('approval', true);
    const refused = await cli(['send', '--to', 'nowhere:1', file('z.json', body)]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('target: platform "nowhere" is not enabled');
    const json = await cli(['send', '--to', 'nowhere:1', '--json', file('z.json', body)]);
    expect(JSON.parse(json.err)).toMatchObject({ details: [{ path: 'target' }], exit_code: 1 });
    const down = await cli(['cases'], { env: { RELAY_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(1);
    expect(down.err).toContain('cannot reach the relay at http://127.0.0.1:9');
  });
});

describe('hitl-relay status and cases', () => {
  it('shows a case, waits for its end, and lists open cases', async () => {
    const body = await demo.create('escalation', true);
    const sent = JSON.parse(
      (await cli(['send', '--to', 'web:cli-status', '--json', file('e.json', body)])).out,
    );
    const open = await cli(['cases', '--open']);
    expect(open.out).toMatch(/^ID\s+STATUS\s+TYPE\s+TARGET\s+CREATED\s+PROMPT/);
    expect(open.out).toContain(sent.id);
    const notYet = await cli(['status', sent.id, '--wait', '--timeout', '0.2']);
    expect(notYet.code).toBe(3);
    expect(notYet.out).toContain(`${sent.id}  pending`);
    const waiting = cli(['status', sent.id, '--wait', '--json']);
    await tapWhenPosted(relay.url, 'cli-status', 'skip');
    const done = await waiting;
    expect(done.code).toBe(0);
    expect(JSON.parse(done.out)).toMatchObject({
      status: 'completed',
      result: { action: 'skip' },
      approval: { approved: false, reason: 'skipped by Ann' },
    });
    const shown = await cli(['status', sent.id]);
    expect(shown.out).toContain('result:   skip  by Ann (reported by x-web as ann)');
    expect((await cli(['cases', '--open', '--json'])).out).not.toContain(sent.id);
    const missing = await cli(['status', 'hc_nope']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('relay answered 404');
    expect((await cli(['cases', '--limit', '0'])).code).toBe(2);
    expect((await cli(['status'])).code).toBe(2);
  });

  it('sends RELAY_API_KEY, and says so when the relay refuses without it', async () => {
    const key = 'cli-test-api-key-0123456789';
    const guarded = await startRelay({
      adapters: [createWebAdapter()],
      env: { RELAY_API_KEY: key, HOST: '127.0.0.1', RELAY_ALLOW_HTTP_LOOPBACK: '1' },
    });
    try {
      const env = { RELAY_URL: guarded.url };
      const refused = await cli(['cases'], { env });
      expect(refused.code).toBe(1);
      expect(refused.err).toContain('relay answered 401');
      expect(refused.err).not.toContain(key);
      const ok = await cli(['cases', '--json'], { env: { ...env, RELAY_API_KEY: key } });
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.out)).toEqual({ cases: [] });
    } finally {
      await guarded.stop();
    }
  });
});

describe('hitl-relay send --require-approval (a deploy gate)', () => {
  it('exits 0 on approve and prints who approved (real binary)', async () => {
    const body = await demo.create('approval', true);
    const running = bin([
      'send',
      '--to',
      'web:gate-ok',
      '--require-approval',
      file('g1.json', body),
    ]);
    await tapWhenPosted(relay.url, 'gate-ok', 'approve');
    const r = await running;
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/completed \(final\)/);
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(
      'approved: approve by Ann (reported by x-web as ann)',
    );
  });

  it('exits 1 on reject, so `send --require-approval … && ./deploy` does not deploy', async () => {
    const body = await demo.create('approval', true);
    const running = cli([
      'send',
      '--to',
      'web:gate-no',
      '--require-approval',
      file('g2.json', body),
    ]);
    await tapWhenPosted(relay.url, 'gate-no', 'reject');
    const r = await running;
    expect(r.code).toBe(1);
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(
      'not approved: reject by Ann (reported by x-web as ann)',
    );
    // --wait alone reports the end (exit 0) and still says who decided.
    const shown = await cli([
      'status',
      JSON.parse((await cli(['cases', '--json'])).out).cases[0].id,
      '--wait',
    ]);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('not approved: reject by Ann (reported by x-web as ann)');
  });

  it('exits 4 when the case expires, 3 when still open after --timeout, 1 when cancelled', async () => {
    const expiring = await demo.create('approval', true);
    const e = cli([
      'send',
      '--to',
      'web:gate-exp',
      '--require-approval',
      file('g3.json', expiring),
    ]);
    await eventually(async () => (await roomMessages(relay.url, 'gate-exp')).length > 0);
    await demo.act(expiring.hitl.case_id, { step: 'expire' });
    const expired = await e;
    expect(expired.code).toBe(4);
    expect(expired.out).toContain('not approved: expired without a decision');

    const open = await demo.create('confirmation', true);
    const t = await cli([
      'send',
      '--to',
      'web:gate-exp',
      '--require-approval',
      '--timeout',
      '0.2',
      file('g4.json', open),
    ]);
    expect(t.code).toBe(3);
    expect(t.out).toContain('not final yet: the case is pending');
    await demo.act(open.hitl.case_id, { step: 'cancel', reason: 'superseded' });
    const id = JSON.parse((await cli(['cases', '--json'])).out).cases[0].id;
    const c = await cli(['status', id, '--require-approval', '--timeout', '20']);
    expect(c.code).toBe(1);
    expect(c.out).toContain('not approved: cancelled: superseded');
  });
});
