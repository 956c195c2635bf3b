import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoService } from '../../src/demo/index.ts';
import {
  createCase,
  type DemoServer,
  type Json,
  schemaErrors,
  startDemoServer,
} from './helpers.ts';

const TYPES = [
  'approval',
  'selection',
  'input',
  'confirmation',
  'escalation',
  'x-compare',
] as const;
const INLINE_ACTIONS: Record<string, string[] | undefined> = {
  approval: ['approve', 'reject'],
  confirmation: ['confirm', 'cancel'],
  escalation: ['retry', 'skip', 'abort'],
};

let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer({ pollRetryAfterSeconds: 7 });
});
afterAll(() => server.close());

describe('POST /api/reviews', () => {
  for (const type of TYPES) {
    for (const inline of [true, false]) {
      it(`answers 202 with a schema-valid v0.8 hitl object: ${type}, inline=${inline}`, {
        tags: ['corpus'],
      }, async () => {
        const res = await fetch(
          `${server.base}/api/reviews?type=${type}&inline=${inline ? 1 : 0}`,
          {
            method: 'POST',
          },
        );
        expect(res.status).toBe(202);
        expect(res.headers.get('retry-after')).toBe('7');
        const body = (await res.json()) as Json;
        expect(body.status).toBe('human_input_required');
        expect(typeof body.message).toBe('string');
        const hitl = body.hitl as Json;
        expect(schemaErrors('hitl-object.schema.json', hitl)).toEqual([]);
        expect(hitl.spec_version).toBe('0.8');
        expect(hitl.type).toBe(type);
        expect(hitl.case_id).toMatch(/^review_[a-f0-9]+$/);
        const id = hitl.case_id;
        expect(hitl.review_url).toMatch(
          new RegExp(`^${server.base}/review/${id}\\?token=[A-Za-z0-9_-]{43}$`),
        );
        expect(hitl.poll_url).toBe(`${server.base}/api/reviews/${id}/status`);
        expect(hitl.events_url).toBe(`${server.base}/api/reviews/${id}/events`);
        expect(hitl.callback_url).toBeNull();
        expect(Date.parse(hitl.expires_at) - Date.parse(hitl.created_at)).toBe(86_400_000);
        expect(hitl.timeout).toBe('24h');
        if (inline) {
          expect(hitl.submit_url).toBe(`${server.base}/api/reviews/${id}/respond`);
          expect(hitl.submit_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
          expect(hitl.review_url).not.toContain(hitl.submit_token);
          expect(hitl.inline_actions).toEqual(INLINE_ACTIONS[type]);
        } else {
          expect(hitl.submit_url).toBeUndefined();
          expect(hitl.submit_token).toBeUndefined();
          expect(hitl.inline_actions).toBeUndefined();
        }
      });
    }
  }

  it('gives each type realistic context and a safe default_action', async () => {
    const ctx = async (type: string) => (await createCase(server.base, type, false)).hitl as Json;
    const approval = await ctx('approval');
    expect(approval.context.artifact.summary).toBeTruthy();
    expect(approval.default_action).toBe('reject');
    const selection = await ctx('selection');
    expect(selection.context.options.length).toBeGreaterThan(1);
    expect(selection.default_action).toBe('skip');
    const input = await ctx('input');
    expect(input.context.form.fields.some((f: Json) => f.sensitive === true)).toBe(true);
    const confirmation = await ctx('confirmation');
    expect(confirmation.context.irreversible).toBe(true);
    expect(confirmation.default_action).toBe('abort');
    const escalation = await ctx('escalation');
    expect(escalation.context.error.code).toBeTruthy();
  });

  it('echoes the agent’s options: prompt, expiry, reminders, callback, chain link, verification', {
    tags: ['corpus'],
  }, async () => {
    const first = await createCase(server.base, 'approval', true);
    const body = await createCase(server.base, 'approval', true, {
      prompt: 'Ship it?',
      expires_in_seconds: 600,
      reminder_at: ['2030-01-01T00:00:00Z', '2030-01-01T01:00:00Z'],
      previous_case_id: first.hitl.case_id,
      hitl_callback_url: 'https://agent.example/hooks/hitl',
      context: { ticket: 'OPS-42' },
      inline_actions: ['approve'],
      verification: 'required',
      query: 'ignored: an agent request may carry its own fields',
    });
    const hitl = body.hitl as Json;
    expect(schemaErrors('hitl-object.schema.json', hitl)).toEqual([]);
    expect(hitl.prompt).toBe('Ship it?');
    expect(hitl.timeout).toBe('10m');
    expect(hitl.reminder_at).toEqual(['2030-01-01T00:00:00Z', '2030-01-01T01:00:00Z']);
    expect(hitl.previous_case_id).toBe(first.hitl.case_id);
    expect(hitl.callback_url).toBe('https://agent.example/hooks/hitl');
    expect(hitl.context.ticket).toBe('OPS-42');
    expect(hitl.context.artifact).toBeDefined();
    expect(hitl.inline_actions).toEqual(['approve']);
    expect(hitl.verification_policy.mode).toBe('required');
    expect(hitl.verification_policy.required_for).toEqual(['inline_submit']);
    // The earlier case now points forward to this one.
    const prev = (await (await fetch(first.hitl.poll_url)).json()) as Json;
    expect(prev.next_case_id).toBe(hitl.case_id);
  });

  it('accepts a single reminder_at string and step_up / optional verification', {
    tags: ['corpus'],
  }, async () => {
    for (const verification of ['step_up', 'optional']) {
      const { hitl } = await createCase(server.base, 'confirmation', true, {
        reminder_at: '2030-01-01T00:00:00Z',
        verification,
      });
      expect(schemaErrors('hitl-object.schema.json', hitl)).toEqual([]);
      expect(hitl.reminder_at).toBe('2030-01-01T00:00:00Z');
    }
  });

  it('refuses bad requests with 400 and field paths', async () => {
    const bad = async (query: string, body: unknown) => {
      const res = await fetch(`${server.base}/api/reviews?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      return (await res.json()) as Json;
    };
    expect((await bad('type=poll', {})).error).toBe('invalid_request');
    expect((await bad('type=approval&inline=maybe', {})).error).toBe('invalid_request');
    expect((await bad('type=approval', '{nope')).error).toBe('invalid_request');
    const http = await bad('type=approval', { hitl_callback_url: 'http://agent.example/hook' });
    expect(http.details[0].path).toBe('hitl_callback_url');
    expect((await bad('type=approval', { inline_actions: ['select'] })).message).toContain(
      'select',
    );
    expect((await bad('type=approval', { prompt: 'x'.repeat(501) })).details[0].path).toBe(
      'prompt',
    );
    expect((await bad('type=approval', { reminder_at: '2030-01-01' })).details[0].path).toBe(
      'reminder_at',
    );
    const form = await bad('type=input', { context: { form: { fields: [{ key: '1x' }] } } });
    expect(form.details[0].path).toBe('context');
  });

  it('builds URLs from baseUrl when given, and from the origin plus mountPath otherwise', {
    tags: ['corpus'],
  }, async () => {
    const fixed = createDemoService({ baseUrl: 'https://hitl.example/demo/' });
    const res = await fixed.app.request('/api/reviews?type=confirmation&inline=1', {
      method: 'POST',
    });
    const body = (await res.json()) as Json;
    expect(body.hitl.review_url).toMatch(/^https:\/\/hitl\.example\/demo\/review\/review_/);
    expect(body.hitl.submit_url).toMatch(/^https:\/\/hitl\.example\/demo\/api\/reviews\//);
    expect(schemaErrors('hitl-object.schema.json', body.hitl)).toEqual([]);
    fixed.close();
    const alone = createDemoService({ mountPath: '' });
    const res2 = await alone.app.request('http://localhost:9999/api/reviews?type=input', {
      method: 'POST',
    });
    const body2 = (await res2.json()) as Json;
    expect(body2.hitl.poll_url).toMatch(
      /^http:\/\/localhost:9999\/api\/reviews\/review_\w+\/status$/,
    );
    alone.close();
  });
});
