/**
 * The load generator in a process of its own: in production the agents calling the relay run
 * elsewhere, so a benchmark's relay must not share its event loop with the clients that load it.
 * Both sides (the relay and the bare baseline) are driven from here by the same generator. Run as
 * a child by `startLoadHost`; talks over IPC like bench/lib/fakes-host.ts.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Where each intake goes: one fixed target, or `${prefix}${i % mod}`. */
export type TargetSpec = { fixed: string } | { prefix: string; mod: number };

/** A burst of `n` requests with `concurrency` clients. */
export type LoadJob =
  /** `POST /v1/cases` to the relay at `url`; the HITL service is the fakes host's. */
  | {
      kind: 'intake';
      url: string;
      target: TargetSpec;
      serviceUrl: string;
      secret: string;
      n: number;
      concurrency: number;
    }
  /** The bare sender: `sendMessage` to the fake Bot API. */
  | {
      kind: 'baseline';
      apiRoot: string;
      token: string;
      chat: number;
      n: number;
      concurrency: number;
    };

/** What a burst measured: requests per second and intakes whose card was not posted yet. */
export interface LoadResult {
  rate: number;
  notPosted: number;
}

/** The parent's handle on the running load generator. */
export interface LoadHost {
  run(job: LoadJob): Promise<LoadResult>;
  stop(): Promise<void>;
}

/** Forks the load generator and waits until it is ready. */
export async function startLoadHost(): Promise<LoadHost> {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let seq = 0;
  const waiting = new Map<
    number,
    { resolve: (r: LoadResult) => void; reject: (e: Error) => void }
  >();
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`load host exited with ${code}`)));
    child.on('message', (m: { ready?: true; id?: number; result?: LoadResult; error?: string }) => {
      if (m.ready) return resolve();
      const w = m.id === undefined ? undefined : waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id!);
      if (m.error) w.reject(new Error(m.error));
      else w.resolve(m.result!);
    });
  });
  child.removeAllListeners('exit');
  return {
    run(job) {
      const id = seq++;
      return new Promise<LoadResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send({ id, job });
      });
    },
    async stop() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send({ stop: true });
      await exited;
    },
  };
}

async function main() {
  const { hitlBody } = await import('./hitl-service.ts');
  const { jsonClient, pool } = await import('./run.ts');
  const client = jsonClient(128);
  let serial = 0;

  const targetOf = (t: TargetSpec, i: number) =>
    'fixed' in t ? t.fixed : `${t.prefix}${i % t.mod}`;

  async function intake(job: Extract<LoadJob, { kind: 'intake' }>, result: LoadResult) {
    await pool(job.n, job.concurrency, async (i) => {
      const id = `i${serial++}`;
      const res = await client.post(`${job.url}/v1/cases`, {
        target: targetOf(job.target, i),
        response: hitlBody(job.serviceUrl, job.secret, id),
      });
      if (res.status !== 201)
        throw new Error(`intake answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
      // A failed post is kept and retried by the relay's reconcile loop; counted, not fatal.
      if (res.body.messages?.[0]?.state !== 'posted') result.notPosted++;
    });
  }

  /** The bare loop: the same number of sendMessage calls to the same fake. */
  async function baseline(job: Extract<LoadJob, { kind: 'baseline' }>) {
    const url = `${job.apiRoot}/bot${job.token}/sendMessage`;
    await pool(job.n, job.concurrency, async (i) => {
      const res = await client.post(url, {
        chat_id: job.chat,
        text: `<b>Approval needed</b>\n\nDeploy build b${i} to production?\n\n<i>Waiting for a decision</i>`,
        parse_mode: 'HTML',
        reply_markup: {
          inline_keyboard: [
            [
              { text: 'Approve', callback_data: `hitl:b${i}:approve` },
              { text: 'Reject', callback_data: `hitl:b${i}:reject` },
            ],
            [{ text: 'Details', url: `https://relay.example/r/b${i}` }],
          ],
        },
      });
      if (res.status !== 200) throw new Error(`fake answered ${res.status}`);
    });
  }

  process.on('message', async (m: { id: number; job?: LoadJob; stop?: boolean }) => {
    if (m.stop) {
      await client.close();
      process.disconnect();
      return;
    }
    const job = m.job!;
    const result: LoadResult = { rate: 0, notPosted: 0 };
    try {
      const t0 = performance.now();
      if (job.kind === 'intake') await intake(job, result);
      else await baseline(job);
      result.rate = job.n / ((performance.now() - t0) / 1000);
      process.send?.({ id: m.id, result });
    } catch (e) {
      process.send?.({ id: m.id, error: e instanceof Error ? e.message : String(e) });
    }
  });
  // A parent that died (a benchmark that threw) must not leave the generator running.
  process.once('disconnect', () => process.exit(0));
  process.send?.({ ready: true });
}

if (process.argv[2] === '--child') await main();
