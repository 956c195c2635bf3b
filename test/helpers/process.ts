/** Runs `hitl-relay serve` as a real child process (for crash and restart tests). */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { request } from 'undici';

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A relay child process. */
export interface RelayProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `tsx src/cli.ts serve` with `env` and waits for /readyz. */
export async function spawnRelay(env: Record<string, string>): Promise<RelayProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`relay exited: ${out}`);
    try {
      const res = await request(`${url}/readyz`);
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {}
    if (Date.now() > end) throw new Error(`relay never became ready: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    output: () => out,
    kill: (signal = 'SIGKILL') =>
      new Promise((resolve) => {
        // A process ended by a signal keeps exitCode null: signalCode says it is gone too.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
