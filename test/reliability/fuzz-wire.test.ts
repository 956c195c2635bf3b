/**
 * Property tests over the wire: poll answers, SSE streams and callbacks made by a fuzzer and
 * served over real HTTP. Nothing crashes the process; a case only ever takes a state the service
 * really announced in a valid answer; SSE events come out the same however the stream is cut into
 * packets; a callback alone never changes a case.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ValidationError } from '../../src/errors.ts';
import { parse202Body } from '../../src/protocol/hitl.ts';
import { canTransition } from '../../src/protocol/state.ts';
import { EVENT_STATUS, parsePollResponse, parseReviewEvent } from '../../src/protocol/status.ts';
import { CASE_STATUSES, type CaseStatus } from '../../src/protocol/types.ts';
import { connectOnce, type StreamEvent } from '../../src/watch/sse-stream.ts';
import { Watcher } from '../../src/watch/watcher.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { hostileJson, type Json, mutate, mutations, nastyString } from './fuzz.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';

const SECRET = 'fuzz-callback-secret-0123456789';
let svc: HostileService;
let relay: RelayHandle;

const configDir = mkdtempSync(join(tmpdir(), 'hitl-fuzz-wire-'));

beforeAll(async () => {
  svc = await startHostileService();
  // The hostile service signs callbacks with SECRET.
  const file = join(configDir, 'relay-config.json');
  writeFileSync(file, JSON.stringify({ callback_secrets: { [svc.url]: SECRET } }));
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: {
      RELAY_CONFIG: file,
      POLL_INTERVAL_MIN_SECONDS: '3600',
      POLL_INTERVAL_MAX_SECONDS: '3600',
      SSE_MAX_STREAMS: '0',
      INTAKE_RATE_LIMIT_PER_MINUTE: '0',
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await svc?.close();
  rmSync(configDir, { recursive: true, force: true });
});

async function ingest(): Promise<{ id: string; caseId: string }> {
  const body = svc.body202();
  const parsed = parse202Body(body);
  const r = await relay.relay.services.intake.ingest({ target: 'web:wire', hitl: parsed.hitl });
  return { id: r.case.id, caseId: body.hitl.case_id };
}

/** True when the answer is a 200 JSON poll response for this case (whatever its status). */
function answeredFor(text: string, caseId: string, a: { status: number; type: string }): boolean {
  if (a.status !== 200 || !/json/.test(a.type)) return false;
  try {
    return parsePollResponse(JSON.parse(text)).case_id === caseId;
  } catch {
    return false;
  }
}

const pollAnswer = fc.record({
  status: fc.oneof(
    { weight: 6, arbitrary: fc.constant(200) },
    fc.constantFrom(304, 404, 429, 500, 503),
  ),
  type: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8'),
    },
    fc.constantFrom('text/html', ''),
  ),
  body: fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...CASE_STATUSES), fc.oneof(fc.constant(undefined), mutations))
        .map(([status, ms]) => ({ status, ms })),
    },
    { weight: 1, arbitrary: hostileJson.map((v) => ({ raw: JSON.stringify(v) })) },
    { weight: 1, arbitrary: fc.string().map((raw) => ({ raw })) },
  ),
});

describe('poll answers', () => {
  it('a case only takes a state a valid answer announced, through allowed transitions', async () => {
    const watcher = new Watcher(relay.relay.services);
    await fc.assert(
      fc.asyncProperty(pollAnswer, async (a) => {
        const { id, caseId } = await ingest();
        let text: string;
        if ('raw' in a.body) text = a.body.raw;
        else {
          const doc: Json = {
            status: a.body.status,
            case_id: caseId,
            completed_at: '2026-02-22T10:00:00Z',
            result: { action: 'approve', data: {} },
          };
          text = JSON.stringify(a.body.ms ? mutate(doc, a.body.ms) : doc);
        }
        svc.handle((req, res) => {
          if (req.method !== 'GET') return false;
          res.writeHead(a.status, a.type ? { 'content-type': a.type } : {});
          res.end(a.status === 304 ? undefined : text);
          return true;
        });
        await watcher.check((await relay.relay.services.store.getCase(id))!);
        // The oracle: what the protocol parser accepts for this case, when the answer is a 200 JSON.
        let expected: CaseStatus = 'pending';
        if (a.status === 200 && /json/.test(a.type))
          try {
            const u = parsePollResponse(JSON.parse(text));
            if (u.case_id === caseId && canTransition('pending', u.status)) expected = u.status;
          } catch (err) {
            if (!(err instanceof SyntaxError) && !(err instanceof ValidationError)) throw err;
          }
        const c = (await relay.relay.services.store.getCase(id))!;
        expect(c.status).toBe(expected);
        if (c.status === 'completed') expect(typeof c.doc.result?.action).toBe('string');
        const good = a.status === 304 || expected !== 'pending' || answeredFor(text, caseId, a);
        expect(c.poll_failures).toBe(good ? 0 : 1);
      }),
      { numRuns: 150 },
    );
    svc.handle(null);
  }, 120_000);
});

/** Text of an SSE stream made of valid review events, odd fields, comments and junk lines. */
const sseStream = fc
  .array(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .tuple(fc.constantFrom(...Object.keys(EVENT_STATUS)), mutations)
          .map(
            ([name, ms]) =>
              `event: ${name}\nid: ${name.length}\ndata: ${JSON.stringify(mutate({ case_id: 'review_sse', result: { action: 'approve', data: {} }, reminder_at: '2026-02-22T10:00:00Z' }, ms))}\n\n`,
          ),
      },
      fc.constantFrom(
        ': keep-alive\n',
        'retry: 1500\n',
        'id: 7\n',
        'data:\n',
        'event:\n',
        '\n',
        'data: {"case_id":',
      ),
      nastyString.map((s) => `${s}\n`),
      fc.string({ unit: 'grapheme' }).map((s) => `data: ${s}\n`),
    ),
    { maxLength: 12 },
  )
  .chain((parts) =>
    fc.constantFrom('\n', '\r\n', '\r').map((eol) => parts.join('').replace(/\n/g, eol)),
  );

/** Every event eventsource-parser finds in `text` read in one piece: the reference. */
function eventsOf(text: string): StreamEvent[] {
  const out: StreamEvent[] = [];
  const p = createParser({
    onEvent: (m) => void out.push({ id: m.id, event: m.event ?? 'message', data: m.data }),
  });
  p.feed(text);
  return out;
}

describe('SSE streams', () => {
  it('events are the same however the stream is cut, and each one parses or is refused', async () => {
    await fc.assert(
      fc.asyncProperty(sseStream, fc.array(fc.nat(), { maxLength: 8 }), async (text, cuts) => {
        const bytes = Buffer.from(text, 'utf8');
        const ends = [...new Set([...cuts.map((c) => c % (bytes.length + 1)), bytes.length])].sort(
          (x, y) => x - y,
        );
        const chunks = ends.map((end, i) => bytes.subarray(i === 0 ? 0 : ends[i - 1]!, end));
        svc.handle(async (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          // Each piece in its own write, a tick apart, cutting through lines and UTF-8 sequences.
          for (const chunk of chunks) {
            res.write(chunk);
            await new Promise((r) => setImmediate(r));
          }
          res.end();
          return true;
        });
        const got: StreamEvent[] = [];
        const result = await connectOnce(`${svc.url}/events`, {
          dispatcher: relay.relay.services.dispatcher,
          lastEventId: null,
          signal: new AbortController().signal,
          headersTimeoutMs: 5000,
          idleTimeoutMs: 5000,
          maxEventChars: 64 * 1024,
          onOpen: () => {},
          onEvent: async (e) => {
            got.push(e);
            try {
              parseReviewEvent(e.event, e.data);
            } catch (err) {
              expect(err).toBeInstanceOf(ValidationError);
            }
            return 'continue';
          },
          now: Date.now,
        });
        expect(result.opened).toBe(true);
        expect(got).toEqual(eventsOf(text));
      }),
      {
        numRuns: 150,
        // Found by this property (seed 777521280): a chunk ending in the second CR of a CR-only
        // blank line, then an unterminated line; eventsource-parser 3 dropped event 18.
        examples: [
          [
            'id: 7\revent: review.in_progress\rid: 18\rdata: {"case_id":"review_sse","result":{"action":"approve","data":"\\"{}\\""},"reminder_at":"2026-02-22T10:00:00Z"}\r\rdata: {"case_id":',
            [81930806, 0],
          ],
        ],
      },
    );
    svc.handle(null);
  }, 120_000);
});

describe('callbacks', () => {
  it('fuzzed callbacks get 2xx, 400 or 401, never 5xx, and never change a case by themselves', async () => {
    const { id, caseId } = await ingest();
    const path = relay.relay.services.config.callbackPath;
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(EVENT_STATUS)),
        fc.oneof(fc.constant(undefined), mutations),
        fc.constantFrom('good', 'good', 'wrong', 'none'),
        async (event, ms, sign) => {
          const doc: Json = {
            event,
            case_id: caseId,
            completed_at: '2026-02-22T10:00:00Z',
            result: { action: 'approve', data: {} },
          };
          const body = JSON.stringify(ms ? mutate(doc, ms) : doc);
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (sign !== 'none')
            headers['x-hitl-signature'] = `sha256=${createHmac(
              'sha256',
              sign === 'good' ? SECRET : 'not-the-secret-0123',
            )
              .update(body)
              .digest('hex')}`;
          const res = await request(`${relay.url}${path}`, { method: 'POST', headers, body });
          await res.body.dump();
          statuses.add(res.statusCode);
          expect([200, 202, 400, 401]).toContain(res.statusCode);
          if (sign !== 'good') expect(res.statusCode).toBe(401);
          // The service (poll_url, the source of truth) says pending: no callback may move the case.
          expect((await relay.relay.services.store.getCase(id))!.status).toBe('pending');
        },
      ),
      { numRuns: 200 },
    );
    expect(statuses.has(200)).toBe(true);
    const c = await relay.get(id);
    expect(c.status).toBe('pending');
    expect(c.history.filter((h: any) => h.kind === 'status')).toEqual([]);
  }, 120_000);
});
