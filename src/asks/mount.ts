/** The relay's one hook for asks: the HITL service at /asks and the agent API at /v1/asks. */
import type { Hono } from 'hono';
import type { Health } from '../health.ts';
import type { Logger } from '../log.ts';
import { type AskDeps, registerAskRoutes } from './routes.ts';
import { mountAsks } from './service.ts';

/**
 * Mounts both on `app`; close() stops the service's timers and event streams. With DATABASE_URL
 * the service keeps its cases in PostgreSQL, so every replica serves every ask.
 */
export function mountAskService(
  app: Hono,
  relay: AskDeps,
  log: Logger,
  health?: Health,
): { close(): Promise<void> } {
  const { dataDir, databaseUrl, retentionMs } = relay.config;
  const service = mountAsks(app, {
    dataDir,
    log,
    retentionMs,
    ...(databaseUrl && { databaseUrl }),
    ...(health && { health }),
  });
  registerAskRoutes(app, relay, service);
  return service;
}
