/**
 * Runs the demo HITL service alone: `tsx src/demo/serve.ts`. PORT (default 8788), HOST (default
 * 127.0.0.1), DEMO_DB (default ':memory:'), DEMO_BASE_URL, DEMO_TEST_CONTROLS=1, HITL_CALLBACK_SECRET.
 */
import { serve } from '@hono/node-server';
import { createLogger } from '../log.ts';
import { createDemoService } from './index.ts';

const log = createLogger();
const port = Number(process.env.PORT ?? 8788);
const hostname = process.env.HOST ?? '127.0.0.1';
const demo = createDemoService({
  dbPath: process.env.DEMO_DB ?? ':memory:',
  mountPath: '',
  testControls: process.env.DEMO_TEST_CONTROLS === '1',
  log,
  ...(process.env.DEMO_BASE_URL && { baseUrl: process.env.DEMO_BASE_URL }),
  ...(process.env.HITL_CALLBACK_SECRET && { callbackSecret: process.env.HITL_CALLBACK_SECRET }),
});
const server = serve({ fetch: demo.app.fetch, port, hostname }, (info) => {
  log.info(
    { url: `http://${hostname}:${info.port}` },
    'demo HITL service listening; create a case with POST /api/reviews?type=approval',
  );
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    demo.close();
    server.close(() => process.exit(0));
  });
}
