/**
 * The fakes in a process of their own (the fast HITL service, optionally the fake Telegram Bot
 * API), so a benchmark's relay has its event loop and CPU to itself, as it would in production
 * with the platform and the service elsewhere. Run as a child by `startFakesHost`; talks over IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { UserFromGetMe } from 'grammy/types';

/** What the host tells its parent once listening. */
export interface FakesInfo {
  serviceUrl: string;
  secret: string;
  telegram: { apiRoot: string; token: string; botInfo: UserFromGetMe } | null;
}

/** Questions the parent may ask. */
export type FakesQuestion =
  | { cmd: 'count'; chat: number }
  /** Poll arrival times (ms since the epoch) keyed by case id, since the last ask; clears them. */
  | { cmd: 'polls' }
  | { cmd: 'cpu' };

/** The parent's handle on a running host. */
export interface FakesHost extends FakesInfo {
  ask<T>(q: FakesQuestion): Promise<T>;
  stop(): Promise<void>;
}

/** Forks the host; `recordPolls` keeps every poll's arrival time for the watch benchmark. */
export async function startFakesHost(o: {
  telegram: boolean;
  recordPolls?: boolean;
}): Promise<FakesHost> {
  const child = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify(o)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let seq = 0;
  const waiting = new Map<number, (v: unknown) => void>();
  const info = await new Promise<FakesInfo>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`fakes host exited with ${code}`)));
    child.on('message', (m: { id?: number; ready?: FakesInfo; answer?: unknown }) => {
      if (m.ready) resolve(m.ready);
      else if (m.id !== undefined) {
        waiting.get(m.id)?.(m.answer);
        waiting.delete(m.id);
      }
    });
  });
  child.removeAllListeners('exit');
  return {
    ...info,
    ask<T>(q: FakesQuestion) {
      const id = seq++;
      return new Promise<T>((resolve) => {
        waiting.set(id, resolve as (v: unknown) => void);
        child.send({ id, q });
      });
    },
    async stop() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send({ stop: true });
      await exited;
    },
  };
}

async function main(options: { telegram: boolean; recordPolls?: boolean }) {
  const { startFastService } = await import('./hitl-service.ts');
  const service = await startFastService();
  const polls: Array<[string, number]> = [];
  if (options.recordPolls)
    service.onPoll = (id) => polls.push([id, performance.timeOrigin + performance.now()]);
  const { FakeTelegramApi } = await import('../../test/fakes/telegram-api.ts');
  const fake = options.telegram ? await FakeTelegramApi.start() : null;
  const startCpu = process.cpuUsage();
  const send = (m: unknown) => process.send?.(m);
  // A parent that died (a benchmark that threw) must not leave the fakes running.
  process.once('disconnect', () => process.exit(0));
  process.on('message', async (m: { id: number; q?: FakesQuestion; stop?: boolean }) => {
    if (m.stop) {
      await fake?.close();
      await service.stop();
      process.disconnect();
      return;
    }
    const q = m.q!;
    if (q.cmd === 'count') send({ id: m.id, answer: fake?.messages(q.chat).length ?? 0 });
    else if (q.cmd === 'polls') send({ id: m.id, answer: polls.splice(0) });
    else if (q.cmd === 'cpu') send({ id: m.id, answer: process.cpuUsage(startCpu) });
  });
  send({
    ready: {
      serviceUrl: service.url,
      secret: service.secret,
      telegram: fake ? { apiRoot: fake.apiRoot, token: fake.token, botInfo: fake.botInfo } : null,
    },
  });
}

if (process.argv[2] === '--child') await main(JSON.parse(process.argv[3] ?? '{}'));
