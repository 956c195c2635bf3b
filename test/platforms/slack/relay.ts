/** The relay's own route mounting (src/server/mount-route.ts) on Hono, serving one adapter's routes. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { HttpRoute } from '../../../src/adapter.ts';
import { mountRoute } from '../../../src/server/mount-route.ts';

/** A running server for `routes` on 127.0.0.1, port 0; `url` has no trailing slash. */
export async function serveRoutes(
  routes: HttpRoute[],
): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Hono();
  for (const route of routes) mountRoute(app, route);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
