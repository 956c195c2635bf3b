/**
 * Every 400 of POST /v1/cases is written for a person: it names the field (its JSON path) and says
 * what to send, in words, without the validation library's jargon; and its error code is right.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type DemoHandle, type RelayHandle, startDemo, startRelay } from '../helpers/relay-env.ts';

let demo: DemoHandle;
let relay: RelayHandle;
let good: Record<string, any>;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()] });
  good = await demo.create('approval', true);
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

/** The 202 body with `change` applied to a copy of its hitl object. */
function withHitl(change: (h: Record<string, any>) => void) {
  const body = structuredClone(good);
  change(body.hitl);
  return body;
}

/** Library wording that must never reach a person. */
const JARGON =
  /Invalid input|expected \w+, received|received undefined|must match pattern|\/\^|Too (small|big)|Unrecognized key|Invalid (string|option|element|key|union|type)|nonoptional|zod|invalid_type|too_small|too_big|invalid_format|>=|<=/i;
/** What a message that says what to send looks like. */
const FIX =
  /\b(must|give|send|is required|use|set|remove|add|not allowed|at most|at least|one of|enable|configure)\b/i;

type Case = [name: string, body: () => unknown, path: string, code: string];
const CASES: Case[] = [
  ['empty object', () => ({}), 'target', 'invalid_request'],
  ['target not a string', () => ({ target: 5, response: good }), 'target', 'invalid_request'],
  ['target too short', () => ({ target: 'ab', response: good }), 'target', 'invalid_request'],
  [
    'target without a platform',
    () => ({ target: 'weblobby', response: good }),
    'target',
    'unknown_target',
  ],
  [
    'platform not enabled',
    () => ({ target: 'nowhere:1', response: good }),
    'target',
    'unknown_target',
  ],
  ['unknown route', () => ({ target: 'route:nope', response: good }), 'target', 'unknown_target'],
  ['neither response nor hitl', () => ({ target: 'web:e' }), 'response', 'invalid_request'],
  [
    'both response and hitl',
    () => ({ target: 'web:e', response: good, hitl: good.hitl }),
    'response',
    'invalid_request',
  ],
  [
    'an unknown field',
    () => ({ target: 'web:e', response: good, notify: 'x' }),
    'notify',
    'invalid_request',
  ],
  [
    'notify_on not final/all',
    () => ({ target: 'web:e', response: good, notify_on: 'sometimes' }),
    'notify_on',
    'invalid_request',
  ],
  [
    'a label that is not a string',
    () => ({ target: 'web:e', response: good, labels: { run: 7 } }),
    'labels.run',
    'invalid_request',
  ],
  [
    'response without hitl status',
    () => ({ target: 'web:e', response: { hitl: good.hitl } }),
    'response.status',
    'invalid_hitl',
  ],
  [
    'hitl.type missing',
    () => ({ target: 'web:e', response: withHitl((h) => delete h.type) }),
    'response.hitl.type',
    'invalid_hitl',
  ],
  [
    // An unknown type is read forward-compatibly (link-only card); a type that is no name is not.
    'hitl.type not a name',
    () => ({ target: 'web:e', response: withHitl((h) => (h.type = '')) }),
    'response.hitl.type',
    'invalid_hitl',
  ],
  [
    'hitl.case_id with a space',
    () => ({ target: 'web:e', response: withHitl((h) => (h.case_id = 'a b')) }),
    'response.hitl.case_id',
    'invalid_hitl',
  ],
  [
    'hitl.poll_url not a URL',
    () => ({ target: 'web:e', response: withHitl((h) => (h.poll_url = 'not a url')) }),
    'response.hitl.poll_url',
    'invalid_hitl',
  ],
  [
    'hitl.expires_at not a time',
    () => ({ target: 'web:e', response: withHitl((h) => (h.expires_at = 'tomorrow')) }),
    'response.hitl.expires_at',
    'invalid_hitl',
  ],
  [
    'hitl.prompt empty',
    () => ({ target: 'web:e', response: withHitl((h) => (h.prompt = '')) }),
    'response.hitl.prompt',
    'invalid_hitl',
  ],
  [
    // Any version string is read (newer ones with a warning); a number is no version string.
    'hitl.spec_version not a string',
    () => ({ target: 'web:e', hitl: withHitl((h) => (h.spec_version = 0.8)).hitl }),
    'hitl.spec_version',
    'invalid_hitl',
  ],
  [
    'hitl.inline_actions not a list',
    () => ({ target: 'web:e', response: withHitl((h) => (h.inline_actions = 'approve')) }),
    'response.hitl.inline_actions',
    'invalid_hitl',
  ],
  [
    'hitl.context not an object',
    () => ({ target: 'web:e', response: withHitl((h) => (h.context = 'ctx')) }),
    'response.hitl.context',
    'invalid_hitl',
  ],
  [
    // A short token makes the card link-only; a token that is no string is refused.
    'a submit_token that is not a string',
    () => ({ target: 'web:e', response: withHitl((h) => (h.submit_token = 42)) }),
    'response.hitl.submit_token',
    'invalid_hitl',
  ],
  [
    'notify_url to a private address',
    () => ({ target: 'web:e', response: good, notify_url: 'https://10.0.0.1/hook' }),
    'notify_url',
    'invalid_notify_url',
  ],
  [
    'review_url over plain HTTP elsewhere',
    () => ({
      target: 'web:e',
      response: withHitl((h) => (h.review_url = 'http://review.example/r/1')),
    }),
    'hitl.review_url',
    'invalid_hitl',
  ],
  [
    'a form field type that is not a string',
    () => ({
      target: 'web:e',
      response: withHitl((h) => (h.context = { form: { fields: [{ key: 'a', type: 5 }] } })),
    }),
    'response.hitl.context.form.fields[0].type',
    'invalid_hitl',
  ],
];

it.each(CASES)('%s: names the field and says what to send', async (_name, body, path, code) => {
  const res = await fetch(`${relay.url}/v1/cases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body()),
  });
  const answer = await res.json();
  expect(res.status).toBe(400);
  expect(answer.error).toBe(code);
  const detail = answer.details.find((d: { path: string }) => d.path === path);
  expect(detail, JSON.stringify(answer)).toBeDefined();
  for (const text of [answer.message, ...answer.details.map((d: { message: string }) => d.message)])
    expect(text, JSON.stringify(answer)).not.toMatch(JARGON);
  expect(detail.message, JSON.stringify(answer)).toMatch(FIX);
  expect(answer.message).toContain(path);
  // Rules are the field's own: a form field's type is not a review type.
  if (path.endsWith('fields[0].type')) expect(detail.message).toBe('must be a string');
  if (process.env.SHOW) console.log(JSON.stringify(answer));
});

it('lists at least 20 malformed intakes', () => expect(CASES.length).toBeGreaterThanOrEqual(20));

it('says what to send for a body that is not JSON, and for a bad wait timeout', async () => {
  const res = await fetch(`${relay.url}/v1/cases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"target":',
  });
  expect(res.status).toBe(400);
  const answer = await res.json();
  expect(answer.error).toBe('invalid_json');
  expect(answer.message).toMatch(/send \{"target"/);
  const wait = await fetch(`${relay.url}/v1/cases/hc_x/wait?timeout=soon`);
  expect(wait.status).toBe(400);
  expect(await wait.json()).toMatchObject({
    error: 'invalid_timeout',
    details: [{ path: 'timeout', message: 'must be a number of seconds from 0 to 120' }],
  });
});
