import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createCase,
  inlineSubmit,
  type Json,
  openSse,
  poll,
  startDemoServer,
  submitBody,
} from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('persistence', () => {
  it('keeps cases, tokens and events across a restart on a file database', async () => {
    const dbPath = join(dir, 'demo.sqlite');
    const first = await startDemoServer({ dbPath });
    const { hitl } = await createCase(first.base, 'confirmation', true);
    await first.demo.act(hitl.case_id, 'open');
    await first.close();

    // A new process on another port: the case is there; the 202's URLs keep their old port.
    const second = await startDemoServer({ dbPath });
    const moved = (url: string) => url.replace(new URL(url).origin, second.origin);
    expect((await poll(moved(hitl.poll_url))).json!.status).toBe('opened');
    const res = await inlineSubmit(
      moved(hitl.submit_url),
      hitl.submit_token,
      submitBody('confirm'),
    );
    expect(res.status).toBe(200);
    const sse = await openSse(moved(hitl.events_url));
    await sse.ended;
    expect(sse.events.map((e) => [e.id, e.event])).toEqual([
      ['1', 'review.opened'],
      ['2', 'review.completed'],
    ]);
    await second.close();
  });
});

describe('serve.ts', () => {
  it('runs the service alone on PORT, mounted at the root', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/demo/serve.ts'], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let buffered = '';
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          for (const line of buffered.split('\n')) {
            if (line.includes('listening')) resolve((JSON.parse(line) as Json).url as string);
          }
        });
        child.once('exit', (code) => reject(new Error(`serve.ts exited with ${code}`)));
      });
      const body = await createCase(url, 'escalation', true);
      expect(body.hitl.poll_url).toBe(`${url}/api/reviews/${body.hitl.case_id}/status`);
      expect((await poll(body.hitl.poll_url)).json!.status).toBe('pending');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
