/** The relay's one hook for asks: the HITL service at /asks and the agent API at /v1/asks. */
import type { Hono } from 'hono';
import type { Engine } from '../cases/engine.ts';
import type { Health } from '../health.ts';
import type { Logger } from '../log.ts';
import { registerAskRoutes } from './routes.ts';
import { mountAsks } from './service.ts';

/**
 * Why asks need care with replicas: the service keeps its cases in this replica's SQLite file, not
 * in DATABASE_URL, so its URLs only answer on the replica that created them.
 */
export const ASKS_REPLICAS_NOTE =
  "the asks service keeps its cases in this replica's DATA_DIR (SQLite), not in DATABASE_URL: route POST /v1/asks and /asks/* to one replica only (GET /v1/asks/:id works on every replica); see README, Asking the relay directly";

/** Mounts both on `app`; close() stops the service's timers and event streams. */
export function mountAskService(
  app: Hono,
  engine: Engine,
  log: Logger,
  health?: Health,
): { close(): void } {
  // With a shared store there may be replicas, and the asks service is not shared: say so loudly.
  if (engine.config.databaseUrl) {
    log.warn({ part: 'asks' }, `asks: ${ASKS_REPLICAS_NOTE}`);
    health?.note('asks', ASKS_REPLICAS_NOTE);
  }
  const service = mountAsks(app, { dataDir: engine.config.dataDir, log });
  registerAskRoutes(app, engine, service);
  return service;
}
