/** `hitl-relay serve`: the relay with the platforms configured in the environment (and the demo service). */
import { existsSync } from 'node:fs';
import type { PlatformAdapter } from '../adapter.ts';
import type { RouteDocs } from '../adapter-definition.ts';
import { type RelayConfig, readConfig } from '../config/config.ts';
import { createLogger, type Logger, registerSecret } from '../log.ts';
import { createRelay, type Relay } from '../relay.ts';
import { SchemaTooNewError } from '../store/migrations.ts';
import type { Store } from '../store/store.ts';
import { CliError } from './output.ts';
import { startupWarnings } from './warnings.ts';

/** How long a shutdown may take before the process exits anyway (docker stop waits 10 s). */
const SHUTDOWN_LIMIT_MS = 4500;

/** The demo's base URL: PUBLIC_URL, else the loopback address the relay listens on. */
export function demoBase(config: RelayConfig): string {
  return `${config.publicUrl ?? `http://127.0.0.1:${config.port}`}/demo`;
}

/** The demo service's module, loaded only when DEMO is on. */
type DemoModule = typeof import('../demo/mount.ts');

/** Starts the relay and keeps it running until SIGTERM / SIGINT. */
export async function serveCommand(): Promise<void> {
  const config = readConfig();
  const log = createLogger({ level: config.logLevel, format: config.logFormat });
  // A background failure is logged loudly; it must not take every open case's watcher down with it.
  process.on('unhandledRejection', (err) =>
    log.error({ err: err instanceof Error ? err.message : String(err) }, 'unhandled rejection'),
  );
  const { loadAdapters, platformRouteDocs } = await import('../../platforms/registry.ts');
  const adapters = await loadAdapters(process.env, config);
  const routeDocs = await platformRouteDocs();
  const demo = config.demo ? await import('../demo/mount.ts') : undefined;
  const store = config.databaseUrl ? await openDatabaseFor(config.databaseUrl, log) : undefined;
  const relay = await buildRelay({ config, adapters, routeDocs, log, store, demo });
  try {
    await relay.start();
  } catch (err) {
    await relay.stop().catch(() => {});
    throw explainStartError(err, config);
  }
  logStarted({ config, adapters, log, relay, demo: !!demo });
  stopOnSignals(relay, log);
}

/** PostgreSQL, with a lost connection logged as what it means for requests. */
function openDatabaseFor(url: string, log: Logger): Promise<Store> {
  return openDatabase(url, (err) =>
    log.warn(
      { err: err.message, code: (err as { code?: string }).code },
      'PostgreSQL connection lost; requests answer 503 until it is back (see /readyz)',
    ),
  );
}

/** The relay with its store, the demo service when configured, and EXIT_ON_FATAL's exit. */
async function buildRelay(o: {
  config: RelayConfig;
  adapters: PlatformAdapter[];
  routeDocs: Readonly<Record<string, RouteDocs>>;
  log: Logger;
  store: Store | undefined;
  demo: DemoModule | undefined;
}): Promise<Relay> {
  const { config, log, store, demo } = o;
  let relay: Relay;
  try {
    relay = createRelay({
      config,
      adapters: o.adapters,
      routeDocs: o.routeDocs,
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
                // The relay never polls before Retry-After: the built-in demo asks for no more
                // than the relay's own minimum interval, so a local setup polls as configured.
                pollRetryAfterSeconds: Math.floor(config.pollMinMs / 1000),
              }),
          }
        : {}),
      onFatal: config.exitOnFatal
        ? (part) => {
            log.fatal({ part }, `EXIT_ON_FATAL=1: exiting because ${part} needs a fix`);
            void relay.stop().finally(() => process.exit(1));
          }
        : undefined,
    });
  } catch (err) {
    await store?.close();
    throw explainStartError(err, config);
  }
  return relay;
}

/** Where the relay listens, what is unsafe about its setup, and where people go. */
function logStarted(o: {
  config: RelayConfig;
  adapters: PlatformAdapter[];
  log: Logger;
  relay: Relay;
  demo: boolean;
}): void {
  const { config, log, relay } = o;
  const platforms = o.adapters.map((a) => a.platform);
  const base = config.publicUrl ?? relay.url;
  log.info({ url: relay.url, platforms }, 'hitl-relay is listening');
  if (!config.apiKey)
    log.warn(
      'no RELAY_API_KEY: listening on loopback only, and plain HTTP to loopback services is accepted (local default)',
    );
  if (!config.notify?.secret)
    log.warn(
      'notify_url deliveries are unsigned: set RELAY_NOTIFY_SECRET (or RELAY_API_KEY) so receivers can verify them',
    );
  const inContainer = existsSync('/.dockerenv') || existsSync('/run/.containerenv');
  for (const w of startupWarnings(config, platforms, base, inContainer)) log.warn(w);
  if (config.webChat)
    log.info(
      `web chat: ${base}/chat?room=lobby${config.webChatToken ? ' (people sign in with WEB_CHAT_TOKEN)' : ''}`,
    );
  if (o.demo) log.info(`demo HITL service: ${base}/demo`);
}

/** A first SIGTERM / SIGINT stops the relay (within SHUTDOWN_LIMIT_MS); a second exits at once. */
function stopOnSignals(relay: Relay, log: Logger): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutdown: started');
    setTimeout(() => {
      log.error(`shutdown: not done after ${SHUTDOWN_LIMIT_MS} ms; exiting anyway`);
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    relay.stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err: err instanceof Error ? err.message : String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Opens PostgreSQL, turning a refusal into one line that names DATABASE_URL (never its password). */
async function openDatabase(url: string, onError: (err: Error) => void): Promise<Store> {
  let where = 'DATABASE_URL';
  try {
    const u = new URL(url);
    registerSecret(decodeURIComponent(u.password));
    where = `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    throw new CliError(
      'DATABASE_URL is not a valid URL: use postgres://user:password@host:5432/db',
    );
  }
  const { openPostgresStore } = await import('../store/postgres-store.ts');
  try {
    return await openPostgresStore(url, Date.now, { onError });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === '28P01'
        ? 'password authentication failed'
        : e.code === '3D000'
          ? 'the database does not exist'
          : e.code === 'ECONNREFUSED'
            ? 'connection refused (is PostgreSQL running there?)'
            : e.code === 'ENOTFOUND'
              ? 'unknown host'
              : err instanceof SchemaTooNewError
                ? `the database's schema is version ${err.found}, newer than this hitl-relay knows (${err.known}); run the newer hitl-relay or use another database`
                : (e.message ?? String(err));
    throw new CliError(`cannot open DATABASE_URL (${where}): ${why}; check DATABASE_URL`);
  }
}

/** Turns the common start-up failures into one actionable line. */
function explainStartError(err: unknown, config: RelayConfig): unknown {
  if (err instanceof SchemaTooNewError) return new CliError(err.message);
  const e = err as NodeJS.ErrnoException & { syscall?: string };
  if (e?.code === 'EADDRINUSE')
    return new CliError(
      `port ${config.port} on ${config.host} is already in use: stop the other process or set PORT to a free port`,
    );
  if (e?.code === 'EACCES' && e.syscall === 'listen')
    return new CliError(
      `not allowed to listen on port ${config.port}: use a PORT above 1023 or grant the capability`,
    );
  if (
    !config.databaseUrl &&
    typeof e?.code === 'string' &&
    /^(EACCES|EPERM|EROFS|ENOSPC|ENOTDIR|SQLITE_(CANTOPEN|READONLY|IOERR|FULL))/.test(e.code)
  )
    return new CliError(
      `DATA_DIR ${config.dataDir} is not writable (${e.code}): fix its permissions or set DATA_DIR to a writable directory`,
    );
  return err;
}
