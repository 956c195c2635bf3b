/** The relay's one hook for asks: the HITL service at /asks and the agent API at /v1/asks. */
import type { Hono } from 'hono';
import type { Engine } from '../cases/engine.ts';
import type { Logger } from '../log.ts';
import { registerAskRoutes } from './routes.ts';
import { mountAsks } from './service.ts';

/** Mounts both on `app`; close() stops the service's timers and event streams. */
export function mountAskService(app: Hono, engine: Engine, log: Logger): { close(): void } {
  const service = mountAsks(app, { dataDir: engine.config.dataDir, log });
  registerAskRoutes(app, engine, service);
  return service;
}
