/**
 * The Google Chat adapter against the fake Google Chat and a real relay with the demo service:
 * events with forged, foreign, expired or replayed tokens change nothing; the service account's
 * token is exchanged, renewed after a 401, and a refused key stops the platform; the card's wire
 * format; private notices; the /hitl_id command; and a burst of cases to one space within its quota.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { readServiceAccountKey } from '../../../platforms/googlechat/config.ts';
import { createGooglechatAdapter } from '../../../platforms/googlechat/index.ts';
import { PlatformError } from '../../../src/errors.ts';
import { CHAT_ISSUER } from '../../fakes/googlechat-api.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../../helpers/relay-env.ts';
import {
  ALLOWED,
  buttonsOf,
  EVENTS_PATH,
  type GooglechatHarness,
  makeGooglechatHarness,
  paramsOf,
  SPACE,
  STRANGER,
} from './harness.ts';

let h: GooglechatHarness;
let demo: DemoHandle;
let relay: RelayHandle;

async function setUp(o: Parameters<typeof makeGooglechatHarness>[0] = {}) {
  h = await makeGooglechatHarness(o);
  demo = await startDemo();
  relay = await startRelay({ adapters: [h.adapter], allow: { [h.target]: [ALLOWED.id] } });
  await h.attach?.(relay.url);
}

afterEach(async () => {
  await relay?.stop();
  await demo?.stop();
  await h?.close();
});

async function send(type = 'approval') {
  const response = await demo.create(type, true, {});
  const sent = await relay.send(h.target, response);
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  const id = sent.body.id as string;
  await relay.until(id, (x) => x.messages[0]?.state === 'posted');
  const ref = (await h.messages(SPACE)).at(-1)!;
  return { id, ref, hitl: response.hitl };
}

const submissions = async (caseId: string) =>
  (await demo.submissions()).filter((s) => s.case_id === caseId).length;

/** A CARD_CLICKED event on `ref`'s approve button by the allowed person. */
function approveEvent(ref: { id: string }) {
  const card = h.fake.message(ref.id)!;
  const button = buttonsOf(card).find((b) => paramsOf(b).p?.endsWith(':approve'))!;
  return h.fake.event('CARD_CLICKED', {
    space: SPACE,
    user: ALLOWED,
    message: card,
    parameters: paramsOf(button),
  });
}

describe('events are verified', () => {
  it('a missing, forged, foreign, expired or misissued token: 401 and nothing happens', async () => {
    await setUp();
    const { id, ref, hitl } = await send();
    const url = `${relay.url}${EVENTS_PATH}`;
    const other = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'fake-google-1' })
      .setIssuer(CHAT_ISSUER)
      .setAudience(h.fake.projectNumber)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(other.privateKey);
    const tokens = [
      'not-a-jwt',
      forged,
      await h.fake.eventToken({ aud: '999999999999' }),
      await h.fake.eventToken({ iss: 'someone@example.iam.gserviceaccount.com' }),
      await h.fake.eventToken({ iatS: now - 7300, ttlS: 3600 }),
    ];
    for (const token of tokens) {
      const res = await h.fake.deliver(url, approveEvent(ref), token);
      expect(res.status, token.slice(0, 20)).toBe(401);
    }
    const bare = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(approveEvent(ref)),
    });
    expect(bare.status).toBe(401);
    expect(await submissions(hitl.case_id)).toBe(0);
    expect((await relay.get(id)).status).toBe('pending');
  });

  it('the same request again (same token, same body) is a replay: answered, nothing done', async () => {
    await setUp();
    const { id, ref, hitl } = await send();
    const url = `${relay.url}${EVENTS_PATH}`;
    const token = await h.fake.eventToken();
    const event = approveEvent(ref);
    // The stranger's click is refused privately; replayed, it is not even answered again.
    const strangerEvent = { ...event, user: { ...event.user, name: STRANGER.id } };
    const first = await h.fake.deliver(url, strangerEvent, token);
    expect(first.made?.body.privateMessageViewer).toEqual({ name: STRANGER.id });
    const again = await h.fake.deliver(url, strangerEvent, token);
    expect(again).toMatchObject({ status: 200, answer: {}, made: null });
    const ok = await h.fake.deliver(url, event, token);
    expect(ok.status).toBe(200);
    await relay.until(id, (c) => c.status === 'completed');
    const replay = await h.fake.deliver(url, event, token);
    expect(replay).toMatchObject({ status: 200, answer: {}, made: null });
    expect(await submissions(hitl.case_id)).toBe(1);
  });
});

describe('the service account token', () => {
  it('is exchanged at start, renewed once after a 401, and a refused key stops the platform', async () => {
    await setUp();
    const issued = h.fake.tokensIssued;
    expect(issued).toBeGreaterThanOrEqual(1);
    h.fake.expireTokens();
    await send();
    expect(h.fake.tokensIssued).toBe(issued + 1);

    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const { exportPKCS8 } = await import('jose');
    const wrong = { ...JSON.parse(h.fake.keyJson), private_key: await exportPKCS8(privateKey) };
    const stranger = createGooglechatAdapter({
      key: readServiceAccountKey(JSON.stringify(wrong)),
      audience: h.fake.projectNumber,
      apiUrl: h.fake.apiRoot,
      tokenUrl: h.fake.tokenUrl,
      certsUrl: h.fake.certsUrl,
    });
    const failure = await stranger.start({} as never).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PlatformError);
    expect(failure).toMatchObject({ code: 'forbidden' });
    expect(String((failure as Error).message)).not.toContain('PRIVATE KEY');
  });
});

describe('cards and notices', () => {
  it('one button per inline action with the payload only, a Details link, and the edit at the end', async () => {
    await setUp();
    const { id, ref, hitl } = await send();
    const card = h.fake.message(ref.id)!;
    const buttons = buttonsOf(card);
    expect(buttons.map((b) => b.onClick.action?.function ?? 'link')).toEqual([
      'hitl',
      'hitl',
      'link',
    ]);
    expect(buttons.map((b) => Object.keys(paramsOf(b)))).toEqual([['p'], ['p'], []]);
    expect(JSON.stringify(card.body)).not.toContain(hitl.submit_token);
    await h.tap({ ref, action: 'approve', user: ALLOWED, relayUrl: relay.url });
    await relay.until(id, (c) => c.status === 'completed');
    await eventually(async () =>
      buttonsOf(h.fake.message(ref.id)!).every((b) => b.onClick.openLink),
    );
    // The card was patched in place: still one card in the space for this case.
    expect((await h.messages(SPACE)).filter((m) => m.id === ref.id)).toHaveLength(1);
  });

  it('a slow submit: the click is answered at once ("Submitting…" privately), the card ends later', async () => {
    await setUp({ adapter: { tapAnswerWaitMs: 200 } });
    const { id, ref, hitl } = await send();
    await demo.fault({ route: 'respond', kind: 'slow', count: 1, delay_ms: 1_500 });
    const seen = await h.tap({ ref, action: 'approve', user: ALLOWED, relayUrl: relay.url });
    expect(seen.notice).toMatch(/submitting/i);
    expect(seen.answerMs).toBeLessThan(1_500);
    await relay.until(id, (c) => c.status === 'completed', 15_000);
    await eventually(async () =>
      buttonsOf(h.fake.message(ref.id)!).every((b) => b.onClick.openLink),
    );
    expect(await submissions(hitl.case_id)).toBe(1);
  });

  it('/hitl_id answers privately with the target and the person’s id', async () => {
    await setUp();
    const event = h.fake.event('MESSAGE', { space: SPACE, user: ALLOWED, text: '/hitl_id' });
    const res = await h.fake.deliver(`${relay.url}${EVENTS_PATH}`, event);
    expect(res.made?.body.privateMessageViewer).toEqual({ name: ALLOWED.id });
    expect(res.made?.body.text).toContain(`googlechat:${SPACE}`);
    expect(res.made?.body.text).toContain(ALLOWED.id);
  });
});

describe('the quota', () => {
  it('a burst of 30 cases to one space: every card posted once, no 429 while paced to the quota', async () => {
    // 10 writes per 400 ms stands for Chat's 60 a minute.
    await setUp({
      fake: { spaceLimit: 10, windowMs: 400 },
      adapter: { pace: { spaceLimit: 10, spaceWindowMs: 400, spaceIntervalMs: 1 } },
    });
    const sent = await Promise.all(
      Array.from({ length: 30 }, async () =>
        relay.send(h.target, await demo.create('approval', true, {})),
      ),
    );
    expect(sent.every((s) => s.status === 201)).toBe(true);
    await eventually(async () => (await h.messages(SPACE)).length === 30, 20_000, '30 cards');
    expect(h.fake.quotaErrors).toBe(0);
  });

  it('paced above the quota: the 429s are waited out, every card posted exactly once', async () => {
    await setUp({
      fake: { spaceLimit: 5, windowMs: 1500 },
      adapter: {
        pace: { spaceLimit: 100, spaceIntervalMs: 1 },
        backoffMs: 50,
        rateLimitAttempts: 12,
      },
    });
    const sent = await Promise.all(
      Array.from({ length: 8 }, async () =>
        relay.send(h.target, await demo.create('approval', true, {})),
      ),
    );
    expect(sent.every((s) => s.status === 201)).toBe(true);
    await eventually(async () => (await h.messages(SPACE)).length === 8, 20_000, '8 cards');
    expect(h.fake.quotaErrors).toBeGreaterThan(0);
    expect(h.adapter.rateLimitAnswers).toBe(h.fake.quotaErrors);
  });
});
