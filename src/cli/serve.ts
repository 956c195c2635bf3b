/** `hitl-relay serve`: the relay with the platforms configured in the environment (and the demo service). */
import { existsSync } from 'node:fs';
import { openPostgresStore } from '../cases/postgres-store.ts';
import { type RelayConfig, readConfig } from '../config/config.ts';
import { createLogger } from '../log.ts';
import { createRelay } from '../relay.ts';
import { startupWarnings } from './warnings.ts';

/** The demo's base URL: PUBLIC_URL, else the loopback address the relay listens on. */
export function demoBase(config: RelayConfig): string {
  return `${config.publicUrl ?? `http://127.0.0.1:${config.port}`}/demo`;
}

/** Starts the relay and keeps it running until SIGTERM / SIGINT. */
export async function serveCommand(): Promise<void> {
  const config = readConfig();
  const log = createLogger({ level: config.logLevel });
  const { loadAdapters } = await import('../../platforms/registry.ts');
  const adapters = await loadAdapters(process.env, config);
  const demo = config.demo ? await import('../demo/mount.ts') : undefined;
  const store = config.databaseUrl ? await openPostgresStore(config.databaseUrl) : undefined;
  const relay = createRelay({
    config,
    adapters,
    log,
    ...(store ? { store } : {}),
    ...(demo
      ? {
          mount: (app) =>
            // Its URLs come from configuration, never from a request's Host header.
            demo.mountDemo(app, {
              dataDir: config.dataDir,
              log,
              baseUrl: demoBase(config),
              // The relay never polls before Retry-After: the built-in demo asks for no more than
              // the relay's own minimum interval, so a local setup polls as it is configured to.
              pollRetryAfterSeconds: Math.floor(config.pollMinMs / 1000),
            }),
        }
      : {}),
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
  if (!config.notify?.secret)
    log.warn(
      'notify_url deliveries are unsigned: set RELAY_NOTIFY_SECRET (or RELAY_API_KEY) so receivers can verify them',
    );
  for (const w of startupWarnings(
    config,
    adapters.map((a) => a.platform),
    base,
    existsSync('/.dockerenv') || existsSync('/run/.containerenv'),
  ))
    log.warn(w);
  if (config.webChat)
    log.info(
      `web chat: ${base}/chat?room=lobby${config.webChatToken ? ' (people sign in with WEB_CHAT_TOKEN)' : ''}`,
    );
  if (demo) log.info(`demo HITL service: ${base}/demo`);
  const stop = async () => {
    await relay.stop();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
