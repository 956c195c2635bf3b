#!/usr/bin/env node
// Runs a command with a throwaway PostgreSQL server (PG_TEST_URL), so `npm test` needs no set-up
// beyond Debian's postgresql package. With PG_TEST_URL already set, the command runs against it.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error('usage: with-postgres.mjs <command> [args...]');
  process.exit(2);
}

function run(env) {
  const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))),
  );
}

if (process.env.PG_TEST_URL) process.exit(await run({}));

const root = '/usr/lib/postgresql';
const version = existsSync(root)
  ? readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a))[0]
  : undefined;
if (!version) {
  console.error(
    'The tests need PostgreSQL: install it (apt-get install -y postgresql) or set PG_TEST_URL.',
  );
  process.exit(1);
}
const bin = join(root, version, 'bin');
const dir = mkdtempSync(join(tmpdir(), 'hitl-pg-'));
const asRoot = process.getuid?.() === 0;
if (asRoot) {
  // PostgreSQL refuses to run as root; the cluster belongs to the postgres system user.
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  chownSync(dir, uid, gid);
}
const pg = (tool, toolArgs) =>
  execFileSync(
    asRoot ? 'runuser' : join(bin, tool),
    asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...toolArgs] : toolArgs,
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const data = join(dir, 'data');
pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
pg('pg_ctl', [
  '-D',
  data,
  '-l',
  join(dir, 'log'),
  '-w',
  '-o',
  `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
  'start',
]);
let code = 1;
try {
  code = await run({ PG_TEST_URL: `postgres://postgres@127.0.0.1:${port}/postgres` });
} finally {
  try {
    pg('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
  } catch {}
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
