/** Mounts the demo HITL service at `/demo` on the relay's app, persisting its cases in DATA_DIR. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { Logger } from '../log.ts';
import { createDemoService, DEMO_MOUNT_PATH, type DemoService } from './index.ts';

/**
 * Creates the demo service with a file database in `dataDir` and routes `/demo/*` to it. The
 * returned service's close() ends its timers and SSE streams; call it before closing the server.
 */
export function mountDemo(
  app: Hono,
  options: {
    dataDir: string;
    log: Logger;
    baseUrl?: string;
    callbackSecret?: string;
    /** Retry-After on its poll answers; the relay passes its own minimum interval. */
    pollRetryAfterSeconds?: number;
  },
): DemoService {
  mkdirSync(options.dataDir, { recursive: true });
  const demo = createDemoService({
    dbPath: join(options.dataDir, 'demo.sqlite'),
    mountPath: DEMO_MOUNT_PATH,
    log: options.log,
    ...(options.baseUrl && { baseUrl: options.baseUrl }),
    ...(options.callbackSecret && { callbackSecret: options.callbackSecret }),
    ...(options.pollRetryAfterSeconds !== undefined && {
      pollRetryAfterSeconds: options.pollRetryAfterSeconds,
    }),
  });
  app.route(DEMO_MOUNT_PATH, demo.app);
  return demo;
}
