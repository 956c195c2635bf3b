/**
 * A throwaway PostgreSQL cluster of the test's own (like scripts/with-postgres.mjs), so a test can
 * stop and start the server under a running relay. Debian's postgresql package provides the tools.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './process.ts';

/** A cluster on a loopback port. */
export interface PgCluster {
  url: string;
  /** `pg_ctl stop -m fast`: open connections are ended with 57P01, as in a real restart. */
  stop(): void;
  start(): void;
  destroy(): void;
}

/** Creates and starts a cluster. */
export async function startPgCluster(): Promise<PgCluster> {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))[0]
    : undefined;
  if (!version) throw new Error('this test needs PostgreSQL (apt-get install -y postgresql)');
  const bin = join(root, version, 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'hitl-pg-outage-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // PostgreSQL refuses to run as root; the cluster belongs to the postgres system user.
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const pg = (tool: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, tool),
      asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args,
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  const port = await freePort();
  const data = join(dir, 'data');
  pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  const start = () =>
    pg('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start,
    destroy() {
      try {
        pg('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
