/** Progress from poll responses (spec 10.3.4) and sensitive form fields (spec 10.3.1) kept off cards and logs. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import {
  answerOnReviewPage,
  cards,
  historyOf,
  startWatchRelay,
  type WatchRelay,
} from './helpers.ts';

let demo: DemoHandle;
beforeAll(async () => {
  demo = await startDemo();
});
afterAll(async () => {
  await demo.stop();
});

async function run<T>(
  options: Parameters<typeof startWatchRelay>[0],
  fn: (r: WatchRelay) => Promise<T>,
) {
  const r = await startWatchRelay(options);
  try {
    return await fn(r);
  } finally {
    await r.stop();
  }
}

it('PROGRESS-1 shows progress from a poll response: "step 2 of 3, 4 of 8 fields"', async () => {
  await run({ env: { SSE_MAX_STREAMS: '0' } }, async (r) => {
    const response = await demo.create('input', true);
    const { id } = await r.send('web:progress-poll', response);
    await demo.act(response.hitl.case_id, {
      step: 'progress',
      progress: { current_step: 2, total_steps: 3, completed_fields: 4, total_fields: 8 },
    });
    const status = await eventually(
      async () => {
        const [m] = await cards(r, 'progress-poll');
        return m?.status.includes('step') ? m.status : null;
      },
      10_000,
      'progress on the card',
    );
    expect(status).toMatch(/^In progress: step 2 of 3, 4 of 8 fields · expires /);
    expect(await historyOf(r, id)).toContain('status:in_progress:poll');
    const view = await r.get(id);
    expect(view.progress).toEqual({
      current_step: 2,
      total_steps: 3,
      completed_fields: 4,
      total_fields: 8,
    });
  });
});

it('FORM-1 never shows or logs a form field marked sensitive, its label or its value', async () => {
  const LABEL = 'Annual salary expectation XQZ';
  const VALUE = 987_654_321;
  const HINT = 'Only the recruiter sees this QXZ';
  const form = {
    fields: [
      {
        key: 'salary',
        label: LABEL,
        type: 'number',
        required: true,
        hint: HINT,
        sensitive: true,
      },
      { key: 'start_date', label: 'Earliest start date', type: 'text', required: false },
    ],
  };
  await run({}, async (r) => {
    const response = await demo.create('input', true, { context: { form, role: 'Engineer' } });
    const { id } = await r.send('web:sensitive', response);
    await demo.act(response.hitl.case_id, {
      step: 'progress',
      progress: { current_step: 1, total_steps: 1, completed_fields: 1, total_fields: 2 },
    });
    await answerOnReviewPage(response.hitl, 'submit', { salary: VALUE, start_date: 'May' });
    await eventually(async () => (await cards(r, 'sensitive'))[0]?.final, 10_000, 'the final card');
    // The agent gets its answer (the value is the agent's to have)...
    const view = await r.get(id);
    expect(view.result.data.salary).toBe(VALUE);
    // ...but no card, notice or log line ever showed it, nor the field's label or hint.
    const shown = JSON.stringify(await r.room('sensitive'));
    expect(shown).toContain('Role: Engineer');
    const logs = r.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [LABEL, HINT, String(VALUE)]) {
      expect(shown).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
