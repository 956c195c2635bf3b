/**
 * /mcp counts asks against the API key's intake rate limit (INTAKE_RATE_LIMIT_PER_MINUTE, the
 * token buckets of /v1): past it an ask tool answers a tool error that says so and when to retry,
 * and nothing is stored; MCP traffic that makes no ask (tools/list, tasks/get, get_answer) is not
 * intake and goes on.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { connectTasks } from '../helpers/mcp-tasks-client.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const KEY = 'k'.repeat(32);
let relay: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: {
      RELAY_API_KEY: KEY,
      INTAKE_RATE_LIMIT_PER_MINUTE: '2',
      RELAY_ALLOW_HTTP_LOOPBACK: '1',
      HOST: '127.0.0.1',
    },
  });
});
afterAll(async () => {
  await relay?.stop();
});

const stored = async () => (await relay.relay.services.store.listCases({ limit: 100 })).length;

it('the third ask in a minute is a tool error naming the limit; nothing stored; reads go on', async () => {
  const t = await connectTasks(() => `${relay.url}/mcp`, 'intake', KEY);
  const ask = (i: number) =>
    t.session.callTool('ask_confirm', { prompt: `Fine #${i}?`, target: 'web:intake' });
  const first = await ask(1);
  const second = await ask(2);
  expect([first.kind, second.kind], JSON.stringify(t.seen)).toEqual(['task', 'task']);
  expect(await stored()).toBe(2);

  const third = await ask(3);
  expect(third.kind).toBe('immediate');
  const { outcome } = await third.settle();
  const result = (outcome as { result: any }).result;
  expect(result.isError).toBe(true);
  expect(result.content[0].text).toMatch(/nothing was stored.*rate limit.*Retry after \d+ s/s);
  expect(result._meta['hitl-relay/retry_after_seconds']).toBeGreaterThan(0);
  expect(await stored()).toBe(2);

  // Not intake: listing tools, reading a task, reading an answer.
  expect((await t.client.listTools()).tools.length).toBe(11);
  expect((await t.session.task(first.handle!.taskId).snapshot()).status).toBe('working');
  const plain = await connectMcp(`${relay.url}/mcp`, { key: KEY });
  const read = await plain.callTool({
    name: 'get_answer',
    arguments: { ask_id: first.handle!.taskId },
  });
  expect(read.isError ?? false).toBe(false);
  // A waiting call is refused the same way (the limit is per key, not per client).
  const refused = await plain.callTool({
    name: 'ask_approval',
    arguments: { prompt: 'Merge?', target: 'web:intake' },
  });
  expect(refused.isError).toBe(true);
  expect(JSON.stringify(refused.content)).toContain('rate limit');
  expect(await stored()).toBe(2);
  await plain.close();
  await t.close();
});
