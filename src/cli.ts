#!/usr/bin/env node
/** The command line: `serve` (more commands arrive with the agent-side tools). */
import { parseArgs } from 'node:util';
import { openPostgresStore } from './cases/postgres-store.ts';
import { readConfig } from './config/config.ts';
import { ValidationError } from './errors.ts';
import { createLogger } from './log.ts';
import { createRelay } from './relay.ts';

const USAGE = `usage: hitl-relay serve

  serve   start the relay (configuration from the environment; see README)`;

async function serveCommand(): Promise<void> {
  const config = readConfig();
  const log = createLogger({ level: config.logLevel });
  const { loadAdapters } = await import('../platforms/registry.ts');
  const adapters = await loadAdapters(process.env, config);
  const demo = config.demo ? await import('./demo/mount.ts') : undefined;
  const store = config.databaseUrl ? await openPostgresStore(config.databaseUrl) : undefined;
  const relay = createRelay({
    config,
    adapters,
    log,
    ...(store ? { store } : {}),
    ...(demo ? { mount: (app) => demo.mountDemo(app, { dataDir: config.dataDir, log }) } : {}),
  });
  await relay.start();
  const base = config.publicUrl ?? relay.url;
  log.info(
    { url: relay.url, platforms: adapters.map((a) => a.platform) },
    'hitl-relay is listening',
  );
  if (!config.apiKey)
    log.warn(
      'no RELAY_API_KEY: listening on loopback only, and plain HTTP to loopback services is accepted (local default)',
    );
  if (config.webChat) log.info(`web chat: ${base}/chat?room=lobby`);
  if (demo) log.info(`demo HITL service: ${base}/demo`);
  const stop = async () => {
    await relay.stop();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

async function main(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false });
  const command = positionals[0];
  if (command === 'serve') {
    await serveCommand();
    return -1;
  }
  process.stderr.write(`${USAGE}\n`);
  return command ? 2 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    if (err instanceof ValidationError) {
      process.stderr.write(`hitl-relay: ${err.message}\n`);
      for (const d of err.details) process.stderr.write(`  ${d.path}: ${d.message}\n`);
    } else process.stderr.write(`hitl-relay: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
