/**
 * The v0.9 poll variants (v0.9 §8, poll-response.schema.json `oneOf`): completed needs result and
 * completed_at, expired expired_at and default_action, cancelled cancelled_at; open statuses carry
 * no result, responded_by or submission_context. `v09VariantIssue` says why a body breaks them,
 * and agrees with the v0.9 schema body by body.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parsePollResponse, v09VariantIssue } from '../../src/protocol/status.ts';
import { PROTOCOL_DIR } from '../helpers/corpus-location.ts';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020.js')).default;
const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;

const at = '2026-12-01T10:00:00Z';
const base = { case_id: 'c1', created_at: at, expires_at: '2026-12-02T10:00:00Z' };
const result = { action: 'approve', data: {} };

/** Each body, and the issue the checker must name (null: a valid v0.9 variant). */
const BODIES: Array<[string, Record<string, unknown>, string | null]> = [
  ['pending', { ...base, status: 'pending' }, null],
  ['opened', { ...base, status: 'opened', opened_at: at }, null],
  ['in_progress', { ...base, status: 'in_progress', progress: { current_step: 1 } }, null],
  ['completed', { ...base, status: 'completed', completed_at: at, result }, null],
  ['expired', { ...base, status: 'expired', expired_at: at, default_action: 'skip' }, null],
  ['cancelled', { ...base, status: 'cancelled', cancelled_at: at, reason: 'no' }, null],
  ['completed, no completed_at', { ...base, status: 'completed', result }, 'completed_at'],
  ['completed, no result', { ...base, status: 'completed', completed_at: at }, 'result'],
  ['expired, no default_action', { ...base, status: 'expired', expired_at: at }, 'default_action'],
  ['expired, no expired_at', { ...base, status: 'expired', default_action: 'skip' }, 'expired_at'],
  ['cancelled, no cancelled_at', { ...base, status: 'cancelled' }, 'cancelled_at'],
  ['pending with a result', { ...base, status: 'pending', result }, 'result'],
  [
    'opened with responded_by',
    { ...base, status: 'opened', responded_by: { name: 'A' } },
    'responded_by',
  ],
  [
    'expired with a result',
    { ...base, status: 'expired', expired_at: at, default_action: 'skip', result },
    'result',
  ],
  [
    'in_progress with submission_context',
    { ...base, status: 'in_progress', submission_context: { mode: 'browser_submit' } },
    'submission_context',
  ],
];

it.each(BODIES)('POLLV-1 %s: the checker names the broken field', (_, body, issue) => {
  const said = v09VariantIssue(body);
  if (issue === null) expect(said).toBeNull();
  else expect(said).toContain(issue);
});

it('POLLV-2 the checker agrees with the v0.9 poll-response schema on every body', {
  tags: ['corpus'],
}, () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const dir = join(PROTOCOL_DIR, 'schemas', 'v0.9');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.schema.json')))
    ajv.addSchema(JSON.parse(readFileSync(join(dir, f), 'utf8')));
  const validate = ajv.getSchema('https://hitl-protocol.org/schemas/v0.9/poll-response.json')!;
  for (const [name, body] of BODIES)
    expect([name, validate(body)]).toEqual([name, v09VariantIssue(body) === null]);
});

it('POLLV-7 any version: a completed poll without result is refused, naming result', () => {
  expect(() => parsePollResponse({ ...base, status: 'completed', completed_at: at })).toThrow(
    expect.objectContaining({
      details: [
        expect.objectContaining({
          path: 'result',
          message: 'is required when status is completed',
        }),
      ],
    }),
  );
  expect(parsePollResponse({ ...base, status: 'completed', result }).result).toEqual(result);
});
