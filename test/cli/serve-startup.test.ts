/** `hitl-relay serve` on its local defaults: every address its start-up log names answers. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-serve-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('names only addresses that answer (the web chat, the demo service, the relay)', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', PORT: String(port), DATA_DIR: join(dir, 'data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  try {
    // The demo's line is the last of the start-up lines.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        log += d;
        if (log.includes('demo HITL service')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${log}`)));
    });
    const urls = [...new Set(log.match(/http:\/\/127\.0\.0\.1:\d+[^\s"',)]*/g) ?? [])];
    expect(urls).toEqual(
      expect.arrayContaining([
        `http://127.0.0.1:${port}/chat?room=lobby`,
        `http://127.0.0.1:${port}/demo`,
      ]),
    );
    // The listen address itself is where the API is, not a page to open.
    for (const url of urls.filter((u) => new URL(u).pathname !== '/')) {
      const res = await fetch(url);
      expect(res.status, url).toBeLessThan(400);
      await res.arrayBuffer();
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}, 60_000);
