/**
 * Every official 202 body (their service URLs moved onto a loopback spec double, so nothing leaves
 * the machine) and forward-compatible variants are taken in with 201: newer spec versions and an
 * unknown type give a link-only card with a warning, never a refusal.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { example202Bodies } from '../helpers/spec.ts';
import { cardOf } from '../reliability/web.ts';

let double: SpecDouble;
let relay: RelayHandle;
beforeAll(async () => {
  double = await startSpecDouble();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay.stop();
  await double.close();
});

const URL_KEYS = ['review_url', 'poll_url', 'submit_url', 'events_url', 'callback_url'];

/** The body with each service URL's origin replaced by the double's (path and query kept). */
function onLoopback(body: Record<string, any>, suffix: string): Record<string, any> {
  const b = structuredClone(body);
  for (const k of URL_KEYS)
    if (typeof b.hitl[k] === 'string') {
      const u = new URL(b.hitl[k]);
      b.hitl[k] = `${double.url}${u.pathname}${u.search}`;
    }
  b.hitl.case_id = `${b.hitl.case_id}_${suffix}`;
  // Dates of the examples lie in the past; the relay takes them, but keep them open for the card.
  const now = Date.now();
  b.hitl.created_at = new Date(now).toISOString();
  b.hitl.expires_at = new Date(now + 3_600_000).toISOString();
  return b;
}

it('INTAKE-5 the 15 official 202 bodies give 201', { tags: ['corpus'] }, async () => {
  const bodies = example202Bodies();
  expect(bodies).toHaveLength(15);
  for (const [i, e] of bodies.entries()) {
    const res = await relay.send('web:examples', onLoopback(e.body, `ex${i}`));
    expect(res.status, `${e.file} step ${e.step}: ${JSON.stringify(res.body)}`).toBe(201);
    expect(res.body.warnings).toEqual([]);
  }
});

it.each([
  ['0.7.0', undefined, 0],
  ['0.9', undefined, 0],
  ['1.0', undefined, 1],
  ['0.8', 'vote', 1],
])(
  'INTAKE-6 spec_version %s type %s gives 201 (warnings: %i)',
  { tags: ['corpus'] },
  async (version, type, warns) => {
    const base = example202Bodies().find((e) => e.file.startsWith('09-'))!.body;
    const body = onLoopback(base, `v${version}${type ?? ''}`.replace(/\W/g, '_'));
    body.hitl.spec_version = version;
    if (type) body.hitl.type = type;
    const res = await relay.send('web:variants', body);
    expect(res.status).toBe(201);
    expect(res.body.warnings).toHaveLength(warns);
    const card = await eventually(() => cardOf(relay.url, 'variants', res.body.id));
    // An unknown type or an unknown version (not interpreted, v0.9 §2): link-only.
    if (type || version === '1.0') {
      // Link-only: no buttons, the Details link stays.
      expect(card.actions).toEqual([]);
      expect(card.link).toBeTruthy();
    } else expect(card.actions.length).toBeGreaterThan(0);
  },
);
