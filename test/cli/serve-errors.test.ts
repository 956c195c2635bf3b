/**
 * `hitl-relay serve` start-up mistakes end with one actionable line on stderr and exit code 1:
 * a port in use, a DATA_DIR that cannot be written, a DATABASE_URL that cannot be opened (its
 * password never shown).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/migrations.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { freePort } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-serve-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `serve` as a real process; resolves with its exit code, stderr and stdout (the log). */
function serve(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'error', DEMO: '0', DATA_DIR: join(dir, 'data'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (d) => (stderr += d));
  child.stdout?.on('data', (d) => (stdout += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr, stdout })));
}

const lines = (s: string) => s.trim().split('\n');

describe('serve start-up errors', () => {
  it('a port in use: one line naming the port and PORT', async () => {
    const port = await freePort();
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(port, '127.0.0.1', r));
    try {
      const r = await serve({ PORT: String(port) });
      expect(r.code).toBe(1);
      expect(lines(r.stderr)).toEqual([
        `hitl-relay: port ${port} on 127.0.0.1 is already in use: stop the other process or set PORT to a free port`,
      ]);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  }, 30_000);

  it('a DATA_DIR that cannot be written: one line naming DATA_DIR', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const r = await serve({ PORT: String(await freePort()), DATA_DIR: join(file, 'data') });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^hitl-relay: DATA_DIR .*a-file\/data is not writable \(ENOTDIR\): fix its permissions or set DATA_DIR/,
    );
  }, 30_000);

  it('a DATA_DIR written by a newer hitl-relay: one line saying so, nothing changed', async () => {
    const data = join(dir, 'newer');
    openSqliteStore(join(data, 'hitl-relay.sqlite')).close();
    const db = new Database(join(data, 'hitl-relay.sqlite'));
    db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(
      SCHEMA_VERSION + 1,
      'from_the_future',
      1,
    );
    db.close();
    const r = await serve({ PORT: String(await freePort()), DATA_DIR: data });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `hitl-relay: the database's schema is version ${SCHEMA_VERSION + 1}, newer than this hitl-relay knows (${SCHEMA_VERSION}): run the newer hitl-relay, or point DATA_DIR / DATABASE_URL at another database`,
    ]);
  }, 30_000);

  it('a DATABASE_URL nobody answers: one line naming host, port and DATABASE_URL, never the password', async () => {
    const port = await freePort();
    const r = await serve({
      PORT: String(await freePort()),
      DATABASE_URL: `postgres://hitl:very-secret-pw@127.0.0.1:${port}/hitl`,
    });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `hitl-relay: cannot open DATABASE_URL (127.0.0.1:${port}/hitl): connection refused (is PostgreSQL running there?); check DATABASE_URL`,
    ]);
    expect(r.stderr).not.toContain('very-secret-pw');
  }, 30_000);

  it('EXIT_ON_FATAL=1: a refused bot token ends the process with 1 and a line naming the variable', async () => {
    const fake = await FakeTelegramApi.start();
    try {
      const r = await serve({
        PORT: String(await freePort()),
        TELEGRAM_BOT_TOKEN: '123:wrong-token-for-the-test',
        TELEGRAM_API_ROOT: fake.apiRoot,
        EXIT_ON_FATAL: '1',
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/telegram refused to start: .*401.*check TELEGRAM_BOT_TOKEN/);
      expect(r.stdout).toMatch(/EXIT_ON_FATAL=1: exiting because platform:telegram needs a fix/);
      expect(r.stdout).not.toContain('wrong-token-for-the-test');
    } finally {
      await fake.close();
    }
  }, 30_000);

  it('a DATABASE_URL that is not a URL: one line saying what it should look like', async () => {
    const r = await serve({ PORT: String(await freePort()), DATABASE_URL: 'postgres://[bad' });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/DATABASE_URL/);
  }, 30_000);
});
