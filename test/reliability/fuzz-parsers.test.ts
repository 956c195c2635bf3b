/**
 * Property tests of the protocol parsers and the intake: random and mutated 202 bodies (mutations of
 * the official examples), poll responses, SSE events and callback bodies. A parser either returns a
 * fully valid object or throws a ValidationError naming fields; POST /v1/cases answers only 201,
 * 200 or 400, and the store ends up holding only valid cases.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ValidationError } from '../../src/errors.ts';
import { urlRefusal } from '../../src/net/url-policy.ts';
import { parse202Body, parseHitl } from '../../src/protocol/hitl.ts';
import {
  EVENT_STATUS,
  parseCallback,
  parsePollResponse,
  parseReviewEvent,
  type ReviewEvent,
  type StatusUpdate,
} from '../../src/protocol/status.ts';
import { CASE_STATUSES } from '../../src/protocol/types.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { example202Bodies } from '../helpers/spec.ts';
import { hostileJson, type Json, mutate, mutations, nastyString } from './fuzz.ts';

/** The official 202 bodies, read inside the tests tagged corpus. */
const examples = (): Json[] => example202Bodies().map((e) => e.body as Json);
const URL_FIELDS = ['review_url', 'poll_url', 'submit_url', 'events_url'] as const;
const RUNS = { numRuns: 500 };

/** Runs `parse`; a throw must be a ValidationError with named fields, a result must pass `valid`. */
function parsesOrRefuses<T>(parse: () => T, valid: (v: T) => void): void {
  let value: T;
  try {
    value = parse();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    const details = (err as ValidationError).details;
    expect(details.length).toBeGreaterThan(0);
    for (const d of details) {
      expect(typeof d.path).toBe('string');
      expect(typeof d.message).toBe('string');
    }
    return;
  }
  valid(value);
}

/** A hitl object as the spec wants it, field by field. */
function expectValidHitl(h: Record<string, any>): void {
  expect(h.case_id).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
  for (const f of URL_FIELDS) if (h[f] !== undefined) expect(URL.canParse(h[f])).toBe(true);
  expect(Date.parse(h.expires_at)).toBeGreaterThan(Date.parse(h.created_at));
  expect(typeof h.prompt).toBe('string');
  expect(Boolean(h.submit_url)).toBe(Boolean(h.submit_token));
  // Whatever was accepted is accepted again: no half-valid object leaves the parser.
  expect(parseHitl(JSON.parse(JSON.stringify(h))).hitl).toEqual(JSON.parse(JSON.stringify(h)));
}

/**
 * The submit_token a request body carries, when it is distinctive enough to look for in an answer:
 * at least 12 characters and nowhere else in the body (a mutation may copy a prompt into it).
 */
function tokenIn(body: string): string | undefined {
  let doc: any;
  try {
    doc = JSON.parse(body);
  } catch {
    return undefined;
  }
  const hitl = doc?.response?.hitl ?? doc?.hitl;
  const token = hitl?.submit_token;
  if (typeof token !== 'string' || token.length < 12) return undefined;
  delete hitl.submit_token;
  return JSON.stringify(doc).includes(token) ? undefined : token;
}

function expectValidUpdate(u: StatusUpdate): void {
  expect(CASE_STATUSES).toContain(u.status);
  expect(typeof u.case_id).toBe('string');
  if (u.status === 'completed') expect(typeof u.result?.action).toBe('string');
}

function expectValidEvent(e: ReviewEvent): void {
  if (e.kind === 'status') expectValidUpdate(e.update);
  else if (e.kind === 'reminder') expect(typeof e.case_id).toBe('string');
  else if (e.kind === 'terminal') expect(['completed', 'expired', 'cancelled']).toContain(e.status);
  else expect(typeof e.name).toBe('string');
}

const validPoll: Json = {
  status: 'completed',
  case_id: 'review_abc',
  completed_at: '2026-02-22T10:00:00Z',
  result: { action: 'approve', data: { note: 'ok' } },
  responded_by: { name: 'Ann', email: 'ann@example.com' },
  progress: { current_step: 2, total_steps: 3 },
};

describe('protocol parsers under random and mutated input', () => {
  it('parse202Body: mutated official examples are fully valid or refused with named fields', {
    tags: ['corpus'],
  }, () => {
    fc.assert(
      fc.property(fc.nat(examples().length - 1), mutations, (i, ms) => {
        const doc = mutate(examples()[i]!, ms);
        parsesOrRefuses(
          () => parse202Body(doc, 'response'),
          (p) => expectValidHitl(p.hitl),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('parse202Body and parseHitl: random JSON', () => {
    fc.assert(
      fc.property(hostileJson, (doc) => {
        parsesOrRefuses(
          () => parse202Body(doc),
          (p) => expectValidHitl(p.hitl),
        );
        parsesOrRefuses(
          () => parseHitl(doc),
          (p) => expectValidHitl(p.hitl),
        );
      }),
      RUNS,
    );
  });

  it('parsePollResponse: mutated and random poll bodies', () => {
    fc.assert(
      fc.property(mutations, hostileJson, (ms, random) => {
        parsesOrRefuses(() => parsePollResponse(mutate(validPoll, ms)), expectValidUpdate);
        parsesOrRefuses(() => parsePollResponse(random), expectValidUpdate);
      }),
      RUNS,
    );
  });

  it('parseReviewEvent and parseCallback: SSE events and callbacks', () => {
    const names = fc.oneof(fc.constantFrom(...Object.keys(EVENT_STATUS)), nastyString);
    fc.assert(
      fc.property(names, mutations, nastyString, hostileJson, (name, ms, text, random) => {
        const data = mutate({ ...(validPoll as object), reminder_at: '2026-02-22T10:00:00Z' }, ms);
        parsesOrRefuses(() => parseReviewEvent(name, JSON.stringify(data)), expectValidEvent);
        parsesOrRefuses(() => parseReviewEvent(name, text), expectValidEvent);
        parsesOrRefuses(
          () => parseCallback({ ...(data as object), event: name }),
          expectValidEvent,
        );
        parsesOrRefuses(() => parseCallback(random), expectValidEvent);
      }),
      RUNS,
    );
  });

  it('no "__proto__" key in any input reached a prototype', () => {
    const seen: string[] = [];
    for (const k in {}) seen.push(k);
    expect(seen).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('POST /v1/cases with fuzzed bodies', () => {
  let relay: RelayHandle;
  beforeAll(async () => {
    relay = await startRelay({
      adapters: [createWebAdapter()],
      // Nothing fuzzed is ever polled or streamed during the run: this is about intake and store.
      env: {
        POLL_INTERVAL_MIN_SECONDS: '3600',
        POLL_INTERVAL_MAX_SECONDS: '3600',
        SSE_MAX_STREAMS: '0',
        INTAKE_RATE_LIMIT_PER_MINUTE: '0',
      },
    });
  });
  afterAll(() => relay?.stop());

  const requestBody = fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(fc.nat(), mutations)
        .map(([i, ms]) =>
          JSON.stringify(
            mutate({ target: 'web:fuzz', response: examples()[i % examples().length]! }, ms),
          ),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.nat(), mutations)
        .map(([i, ms]) =>
          JSON.stringify(
            mutate(
              { target: 'web:fuzz', hitl: (examples()[i % examples().length] as any).hitl },
              ms,
            ),
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.nat(), nastyString)
        .map(([i, target]) =>
          JSON.stringify({ target, response: examples()[i % examples().length] }),
        ),
    },
    { weight: 1, arbitrary: hostileJson.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string() },
  );

  it('every answer is 201, 200 or 400, and the store holds only valid cases', {
    tags: ['corpus'],
    timeout: 120_000,
  }, async () => {
    const created = new Set<string>();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestBody, async (body) => {
        const res = await relay.relay.app.request('/v1/cases', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect([200, 201, 400]).toContain(res.status);
        const answer = (await res.json()) as Record<string, any>;
        if (res.status === 400) {
          expect(typeof answer.error).toBe('string');
          expect(typeof answer.message).toBe('string');
        } else {
          expect(answer.id).toMatch(/^hc_/);
          // The token never comes back: no submit_token field, no ?token= link, not its value.
          // (A warning may name the field, as "submit_token shorter than 32 characters" does.)
          const shown = JSON.stringify(answer);
          expect(shown).not.toMatch(/"submit_token"\s*:|[?&]token=/);
          const token = tokenIn(body);
          if (token) expect(shown).not.toContain(token);
          if (res.status === 201) created.add(answer.id);
        }
      }),
      { numRuns: 600 },
    );
    // The run exercised every path, not only refusals.
    expect(statuses.get(201)).toBeGreaterThan(0);
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(statuses.get(400)).toBeGreaterThan(0);

    const engine = relay.relay.services;
    const stored = await engine.store.listCases({ limit: 10_000 });
    expect(new Set(stored.map((c) => c.id))).toEqual(created);
    for (const c of stored) {
      const secrets = engine.sealer.open(c.secrets);
      const full = {
        ...c.doc.hitl,
        review_url: secrets.review_url,
        ...(secrets.submit_token ? { submit_token: secrets.submit_token } : {}),
      };
      expectValidHitl(full);
      for (const f of URL_FIELDS)
        if (full[f]) expect(urlRefusal(full[f], engine.config), `${c.id} ${f}`).toBeNull();
      // A case already past expires_at on arrival is stored expired (finding 10), else pending.
      expect(c.status).toBe(
        Date.parse(c.doc.hitl.expires_at) <= c.created_at ? 'expired' : 'pending',
      );
      expect(c.target.startsWith('web:')).toBe(true);
      expect((await engine.store.listHistory(c.id))[0]!.kind).toBe('ingested');
      expect(await engine.store.listMessages(c.id)).toHaveLength(1);
    }
  });
});
