/** Small helpers the benchmarks share: a keep-alive JSON client, a worker pool, sleep. */
import { Agent, request } from 'undici';

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs `fn` over 0..n-1 with `limit` calls at once. */
export async function pool(n: number, limit: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** A JSON client over one keep-alive undici Agent. */
export interface JsonClient {
  post(
    url: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any }>;
  get(url: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** Creates a client with up to `connections` sockets per origin; no timeouts (paced requests may wait long). */
export function jsonClient(connections = 64): JsonClient {
  const dispatcher = new Agent({
    connections,
    keepAliveTimeout: 60_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const read = async (res: Awaited<ReturnType<typeof request>>) => {
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
  };
  return {
    async post(url, body, headers = {}) {
      return read(
        await request(url, {
          method: 'POST',
          dispatcher,
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        }),
      );
    },
    async get(url) {
      return read(await request(url, { dispatcher }));
    },
    close: () => dispatcher.close(),
  };
}
