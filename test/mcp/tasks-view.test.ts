/**
 * The task view of an ask (mcp/tasks.ts), pure: the poll hint grows with the task's age within
 * 1-30 s, and a stored ask maps to the extension's statuses (working, completed with the tool's
 * result and resultType "complete", cancelled without a result) with its ttl from the deadline plus
 * retention (null when asks are kept for ever).
 */
import { expect, it } from 'vitest';
import { TASK_POLL_MS, taskOf, taskPollMs } from '../../src/mcp/tasks.ts';
import type { McpCall } from '../../src/mcp/tools.ts';
import type { StoredCase } from '../../src/store/types.ts';

it('suggests polling at a tenth of the age, from 1 s to 30 s', () => {
  expect(taskPollMs(0)).toBe(TASK_POLL_MS.min);
  expect(taskPollMs(60_000)).toBe(6000);
  expect(taskPollMs(86_400_000)).toBe(TASK_POLL_MS.max);
});

const created = Date.parse('2026-12-02T06:00:00Z');
const ask = (status: string, extra: Record<string, unknown> = {}) =>
  ({
    id: 'hc_task',
    target: 'web:room',
    status,
    created_at: created,
    updated_at: created + 5000,
    doc: {
      hitl: {
        expires_at: new Date(created + 3_600_000).toISOString(),
        context: { type: 'context', sub_type: 'confirm', prompt: 'Fine?' },
      },
      ...extra,
    },
  }) as unknown as StoredCase;
const call = (retentionMs: number) =>
  ({ origin: 'https://relay.example', relay: { config: { retentionMs } } }) as unknown as McpCall;

it('maps an ask to the extension’s task shapes', () => {
  const open = taskOf(call(86_400_000), ask('pending'), created + 10_000);
  expect(open).toMatchObject({
    taskId: 'hc_task',
    status: 'working',
    createdAt: '2026-12-02T06:00:00.000Z',
    ttlMs: 3_600_000 + 86_400_000,
    pollIntervalMs: 1000,
  });
  expect(open).not.toHaveProperty('result');
  const done = taskOf(
    call(0),
    ask('completed', { result: { data: { confirmed: true } }, status_at: '2026-12-02T06:00:05Z' }),
  );
  expect(done).toMatchObject({ status: 'completed', ttlMs: null });
  expect((done as { result: any }).result).toMatchObject({
    resultType: 'complete',
    structuredContent: { ask_id: 'hc_task', status: 'completed', answer: { confirmed: true } },
  });
  const gone = taskOf(call(1000), ask('cancelled', { reason: 'the agent cancelled the request' }));
  expect(gone).toMatchObject({ status: 'cancelled', ttlMs: 6000 });
  expect(gone).not.toHaveProperty('result');
  expect((gone as { statusMessage: string }).statusMessage).toContain('ended without an answer');
});
