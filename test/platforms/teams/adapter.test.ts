import { afterEach, describe, expect, it, vi } from 'vitest';
import { conversationKey } from '../../../platforms/teams/parse.ts';
import type { TapReply } from '../../../src/adapter.ts';
import { stringsOf } from '../../../src/adapter-kit.ts';
import { PlatformError } from '../../../src/errors.ts';
import { MemoryKeyValue } from '../../../src/store/memory-kv.ts';
import { adaptiveCardOf } from '../../fakes/teams-connector.ts';
import {
  channelId,
  executeInvoke,
  installActivity,
  makeCard,
  mentionActivity,
  type Rig,
  startRig,
  submitMessage,
} from './helpers.ts';

const ANN = { id: '29:1ann-aad-object', name: 'Ann Example' };
let rig: Rig;

afterEach(async () => {
  await rig?.close();
});

function activityIdOf(refId: string): string {
  return refId.slice(refId.indexOf(':') + 1);
}

function actionTypes(card: Record<string, unknown> | undefined): string[] {
  return ((card?.actions ?? []) as Array<{ type: string }>).map((a) => a.type);
}

async function caught(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(PlatformError);
    return err as PlatformError;
  }
  throw new Error('expected a PlatformError');
}

describe('installation and the target string', () => {
  it('captures the reference when the bot is added and welcomes with teams:<key>', async () => {
    rig = await startRig();
    const conversationId = channelId();
    const res = await rig.deliver(installActivity(rig.fake.serviceUrl, conversationId));
    expect(res.status).toBe(200);
    const key = conversationKey(conversationId);
    const [welcome] = rig.fake.conversation(conversationId);
    expect(welcome?.versions[0]?.text).toContain(`teams:${key}`);
    const stored = JSON.parse((await rig.kv.get(`teams:conv:${key}`)) ?? '{}');
    // Our own SDK-neutral shape: nothing of botbuilder's ConversationReference is stored.
    expect(stored).toEqual({
      v: 2,
      serviceUrl: rig.fake.serviceUrl,
      channelId: 'msteams',
      conversation: {
        id: conversationId,
        type: 'channel',
        tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
      },
      botId: '28:f5d48856-5b42-41a0-8c3a-c5f944b679b0',
    });
  });

  it('keeps posting, threading and editing through a reference stored in the older botbuilder shape', async () => {
    rig = await startRig();
    const conversationId = channelId();
    const key = conversationKey(conversationId);
    // What versions before the SDK-neutral reference stored (botbuilder's ConversationReference).
    await rig.kv.set(
      `teams:conv:${key}`,
      JSON.stringify({
        user: { id: '29:1abc', aadObjectId: '6f1b8d3a-0000-4000-8000-000000000001' },
        bot: { id: '28:f5d48856-5b42-41a0-8c3a-c5f944b679b0', name: 'hitl-relay' },
        conversation: {
          isGroup: true,
          conversationType: 'channel',
          id: conversationId,
          tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
        },
        channelId: 'msteams',
        locale: 'en-US',
        serviceUrl: rig.fake.serviceUrl,
      }),
    );
    expect(await rig.adapter.checkAddress?.(key)).toBeNull();
    const ref = await rig.adapter.post(key, makeCard());
    await rig.adapter.update(
      ref,
      makeCard({ status: 'Approved by Ann', final: true, actions: [] }),
    );
    await rig.adapter.notify(ref, 'Reminder: still open', null);
    const [card, reminder] = rig.fake.conversation(conversationId);
    expect(card?.versions).toHaveLength(2);
    expect(JSON.stringify(card?.versions[1])).toContain('Approved by Ann');
    expect(reminder?.versions[0]?.text).toBe('Reminder: still open');
    // In the card's thread (a channel threads by the conversation id's ";messageid=").
    expect(reminder?.replyToId).toBe(card?.id);
  });

  it('says nothing when someone else joins', async () => {
    rig = await startRig();
    const conversationId = channelId();
    const activity = installActivity(rig.fake.serviceUrl, conversationId);
    activity.membersAdded = [{ id: '29:someone-else' }];
    expect((await rig.deliver(activity)).status).toBe(200);
    expect(rig.fake.conversation(conversationId)).toHaveLength(0);
    expect(await rig.kv.get(`teams:conv:${conversationKey(conversationId)}`)).toBeUndefined();
  });

  it('answers "@bot hitl id" in a thread with the channel target and the asker id', async () => {
    rig = await startRig();
    const conversationId = channelId();
    expect(
      (await rig.deliver(mentionActivity(rig.fake.serviceUrl, conversationId, 'hitl id'))).status,
    ).toBe(200);
    const [reply] = rig.fake.conversation(conversationId);
    expect(reply?.replyToId).toBe('1481567603816');
    expect(reply?.versions[0]?.text).toBe(
      `This chat's hitl-relay target is teams:${conversationKey(conversationId)}\nGive it to your agent (or put it into hitl-relay's routes) and review cases will arrive here as messages with buttons.\nYour user id here is 29:9e52142b-5e5e-4d7b-bb3e-e82dcf620000.`,
    );
    // The mention also stored the channel's reference: cards can go there now.
    const ref = await rig.adapter.post(conversationKey(conversationId), makeCard());
    expect(rig.fake.activity(activityIdOf(ref.id))?.replyToId).toBeNull();
  });

  it('ignores other messages', async () => {
    rig = await startRig();
    const conversationId = channelId();
    await rig.deliver(mentionActivity(rig.fake.serviceUrl, conversationId, 'hello there'));
    expect(rig.fake.conversation(conversationId)).toHaveLength(0);
  });
});

describe('post, update, notify', () => {
  it('posts an Adaptive Card as a new message and keeps its activity id', async () => {
    rig = await startRig();
    const { conversationId, key } = await rig.install();
    const ref = await rig.adapter.post(key, makeCard());
    expect(ref).toEqual({
      platform: 'teams',
      address: key,
      id: expect.stringMatching(new RegExp(`^${key}:\\d+$`)),
    });
    const last = rig.fake.recordedRequests().at(-1);
    expect(last?.method).toBe('POST');
    expect(decodeURIComponent(last?.path ?? '')).toBe(
      `/v3/conversations/${conversationId}/activities`,
    );
    const card = rig.fake.card(activityIdOf(ref.id));
    expect(card?.version).toBe('1.4');
    expect(actionTypes(card)).toEqual(['Action.Execute', 'Action.Execute', 'Action.OpenUrl']);
    expect(rig.fake.current(activityIdOf(ref.id))).toMatchObject({
      type: 'message',
      summary: 'Approval needed',
    });
  });

  it('edits the card in place; the final card has no buttons', async () => {
    rig = await startRig();
    const { key } = await rig.install();
    const ref = await rig.adapter.post(key, makeCard());
    await rig.adapter.update(ref, makeCard({ final: true, status: 'Approved by Ann Example' }));
    const last = rig.fake.recordedRequests().at(-1);
    expect(last?.method).toBe('PUT');
    expect(last?.path).toMatch(new RegExp(`/activities/${activityIdOf(ref.id)}$`));
    const card = rig.fake.card(activityIdOf(ref.id));
    expect(actionTypes(card)).toEqual(['Action.OpenUrl']);
    expect(JSON.stringify(card)).toContain('Approved by Ann Example');
  });

  it("sends a reminder into the card's thread in a channel, with a link and no mentions", async () => {
    rig = await startRig();
    const { conversationId, key } = await rig.install();
    const ref = await rig.adapter.post(key, makeCard());
    await rig.adapter.notify(ref, 'Still waiting for a decision', {
      label: 'Details',
      url: 'https://service.example/r/1',
    });
    const last = rig.fake.recordedRequests().at(-1);
    expect(decodeURIComponent(last?.path ?? '')).toBe(
      `/v3/conversations/${conversationId};messageid=${activityIdOf(ref.id)}/activities`,
    );
    const reply = rig.fake.conversation(conversationId).at(-1);
    expect(reply?.replyToId).toBe(activityIdOf(ref.id));
    const body = reply?.versions[0] ?? {};
    expect(body.entities ?? []).toEqual([]);
    expect(adaptiveCardOf(body)).toMatchObject({
      body: [{ type: 'TextBlock', text: 'Still waiting for a decision' }],
      actions: [{ type: 'Action.OpenUrl', title: 'Details', url: 'https://service.example/r/1' }],
    });
  });

  it('replies to the card by replyToId in a group chat', async () => {
    rig = await startRig();
    const conversationId = `19:${crypto.randomUUID()}@thread.v2`;
    await rig.deliver(installActivity(rig.fake.serviceUrl, conversationId, 'groupChat'));
    const key = conversationKey(conversationId);
    const ref = await rig.adapter.post(key, makeCard());
    await rig.adapter.notify(ref, 'Reminder', null);
    const last = rig.fake.recordedRequests().at(-1);
    expect(decodeURIComponent(last?.path ?? '')).toBe(
      `/v3/conversations/${conversationId}/activities/${activityIdOf(ref.id)}`,
    );
    expect(rig.fake.conversation(conversationId).at(-1)?.versions[0]).toMatchObject({
      text: 'Reminder',
      textFormat: 'plain',
    });
  });

  it('fails with not_found for a conversation the bot was never added to', async () => {
    rig = await startRig();
    const err = await caught(rig.adapter.post('AAAAAAAAAAAAAAAA', makeCard()));
    expect(err.code).toBe('not_found');
    expect(rig.fake.requests()).toHaveLength(0);
  });

  it('fails with not_found when the message is gone', async () => {
    rig = await startRig();
    const { key } = await rig.install();
    const err = await caught(
      rig.adapter.update({ platform: 'teams', address: key, id: `${key}:999` }, makeCard()),
    );
    expect(err).toMatchObject({ code: 'not_found', status: 404, call: 'updateActivity' });
  });
});

describe('throttling and transient errors', () => {
  it('honours 429 Retry-After and does not lose the post', async () => {
    rig = await startRig();
    const { conversationId, key } = await rig.install();
    rig.fake.failNext(2, 429, 0);
    const ref = await rig.adapter.post(key, makeCard());
    expect(rig.fake.card(activityIdOf(ref.id))).toBeDefined();
    expect(
      rig.fake.conversation(conversationId).filter((a) => adaptiveCardOf(a.versions[0])),
    ).toHaveLength(1);
    expect(rig.clock.sleeps).toEqual([0, 0]);
  });

  it('retries 412, 502 and 504 with jittered backoff', async () => {
    rig = await startRig();
    const { key } = await rig.install();
    const ref = await rig.adapter.post(key, makeCard());
    rig.fake.failNext(1, 412);
    rig.fake.failNext(1, 502);
    rig.fake.failNext(1, 504);
    await rig.adapter.update(ref, makeCard({ status: 'Opened' }));
    expect(JSON.stringify(rig.fake.card(activityIdOf(ref.id)))).toContain('Opened');
    expect(rig.clock.sleeps).toHaveLength(3);
  });

  it('gives up after its retries with rate_limited and the wait', async () => {
    rig = await startRig();
    const { key } = await rig.install();
    rig.fake.failNext(4, 429, 2);
    const err = await caught(rig.adapter.post(key, makeCard()));
    expect(err).toMatchObject({
      code: 'rate_limited',
      status: 429,
      retryAfterMs: 2000,
      retryable: true,
    });
  });

  it('does not sit out a long Retry-After: rate_limited at once', async () => {
    rig = await startRig();
    const { key } = await rig.install();
    const before = rig.fake.requests().length;
    rig.fake.failNext(1, 429, 120);
    const err = await caught(rig.adapter.post(key, makeCard()));
    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 120_000 });
    expect(rig.fake.requests().length - before).toBe(1);
  });

  it('maps a network failure to code network', async () => {
    rig = await startRig();
    const { key } = await rig.install();
    await rig.fake.close();
    const err = await caught(rig.adapter.post(key, makeCard()));
    expect(err.code).toBe('network');
  });
});

describe('taps', () => {
  async function posted(onTap?: (tap: import('../../../src/adapter.ts').Tap) => Promise<TapReply>) {
    rig = await startRig(onTap ? { onTap } : {});
    const { conversationId, key } = await rig.install();
    const ref = await rig.adapter.post(key, makeCard());
    return { conversationId, key, ref, activityId: activityIdOf(ref.id) };
  }

  it('answers an Action.Execute invoke with the refreshed card and the notice', async () => {
    const { conversationId, ref, activityId } = await posted(async () => ({
      outcome: 'submitted',
      text: 'Approved. Thanks!',
      card: makeCard({ status: 'Approved by Ann Example', final: true }),
    }));
    const res = await rig.deliver(
      executeInvoke(rig.fake.serviceUrl, conversationId, activityId, 'hitl:k7Qa9:approve', ANN),
    );
    expect(rig.taps).toEqual([
      { platform: 'teams', key: 'k7Qa9', action: 'approve', user: ANN, ref },
    ]);
    expect(res.status).toBe(200);
    const body = res.body as {
      statusCode: number;
      type: string;
      value: { body: unknown[]; actions: Array<{ type: string }> };
    };
    expect(body.statusCode).toBe(200);
    expect(body.type).toBe('application/vnd.microsoft.card.adaptive');
    expect(body.value.actions.map((a) => a.type)).toEqual(['Action.OpenUrl']);
    expect(body.value.body.at(-1)).toMatchObject({ id: 'hitl-notice', text: 'Approved. Thanks!' });
  });

  it('answers a retried invoke the same way without tapping twice', async () => {
    const { conversationId, activityId } = await posted();
    const invoke = executeInvoke(
      rig.fake.serviceUrl,
      conversationId,
      activityId,
      'hitl:k7Qa9:approve',
      ANN,
    );
    const first = await rig.deliver(invoke);
    const again = await rig.deliver(invoke);
    expect(rig.taps).toHaveLength(1);
    expect(again).toEqual(first);
  });

  it('answers "Submitting…" when the engine is slow, then refreshes the card for everyone', async () => {
    let finish: (reply: TapReply) => void = () => {};
    rig = await startRig({
      config: {
        tuning: {
          pace: [],
          retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0 },
          invokeDeadlineMs: 5,
        },
      },
      onTap: () => new Promise<TapReply>((resolve) => (finish = resolve)),
    });
    const { conversationId, key } = await rig.install();
    const ref = await rig.adapter.post(key, makeCard());
    const activityId = activityIdOf(ref.id);
    const res = await rig.deliver(
      executeInvoke(rig.fake.serviceUrl, conversationId, activityId, 'hitl:k7Qa9:approve', ANN),
    );
    const value = (res.body as { value: { actions: Array<{ type: string }> } }).value;
    expect(value.actions.map((a) => a.type)).toEqual(['Action.OpenUrl']);
    expect(JSON.stringify(value)).toContain('Submitting…');
    const puts = () => rig.fake.recordedRequests().filter((r) => r.method === 'PUT').length;
    expect(puts()).toBe(0);
    finish({ outcome: 'submitted', text: 'Approved.', card: makeCard() });
    await vi.waitFor(() => expect(puts()).toBe(1));
  });

  it('a late tap never leaves an older card on Teams than the case (an edit races the refresh)', async () => {
    let finish: (reply: TapReply) => void = () => {};
    const kv = new MemoryKeyValue();
    rig = await startRig({
      kv,
      config: {
        tuning: {
          pace: [],
          retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0 },
          invokeDeadlineMs: 5,
        },
      },
      onTap: () => new Promise<TapReply>((resolve) => (finish = resolve)),
    });
    const { conversationId, key } = await rig.install();
    const ref = await rig.adapter.post(key, makeCard());
    const activityId = activityIdOf(ref.id);
    await rig.deliver(
      executeInvoke(rig.fake.serviceUrl, conversationId, activityId, 'hitl:k7Qa9:approve', ANN),
    );
    // The engine's final edit lands between the refresh reading the stored card and sending it.
    const final = makeCard({ status: 'Approved by Ann Example', final: true, actions: [] });
    const get = kv.get.bind(kv);
    let armed = true;
    kv.get = async (k) => {
      const value = await get(k);
      if (armed && k.startsWith('teams:card:')) {
        armed = false;
        await rig.adapter.update(ref, final);
      }
      return value;
    };
    const puts = () => rig.fake.recordedRequests().filter((r) => r.method === 'PUT').length;
    finish({ outcome: 'submitted', text: 'Approved.', card: final });
    await vi.waitFor(() => expect(puts()).toBe(3));
    expect(actionTypes(rig.fake.card(activityId))).toEqual(['Action.OpenUrl']);
    expect(JSON.stringify(rig.fake.card(activityId))).toContain('Approved by Ann Example');
  });

  it('answers with a message when there is no card to show', async () => {
    const { conversationId } = await posted(async () => ({
      outcome: 'unknown_case',
      text: 'This case is unknown.',
      card: null,
    }));
    const res = await rig.deliver(
      executeInvoke(rig.fake.serviceUrl, conversationId, '123', 'hitl:zzz:approve', ANN),
    );
    expect(res.body).toEqual({
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: 'This case is unknown.',
    });
  });

  it('still answers, and answers a retry the same, when the tap fails inside the relay', async () => {
    const { conversationId, activityId } = await posted(async () => {
      throw new Error('store down');
    });
    const invoke = executeInvoke(
      rig.fake.serviceUrl,
      conversationId,
      activityId,
      'hitl:k7Qa9:approve',
      ANN,
    );
    const first = await rig.deliver(invoke);
    expect(first.status).toBe(200);
    const body = first.body as { type: string; value: { body: Array<Record<string, unknown>> } };
    expect(body.type).toBe('application/vnd.microsoft.card.adaptive');
    expect(body.value.body.at(-1)).toMatchObject({
      text: stringsOf(null).tapFailed,
    });
    expect(await rig.deliver(invoke)).toEqual(first);
    expect(rig.taps).toHaveLength(1);
  });

  it('accepts Action.Submit messages from older clients', async () => {
    const { conversationId, ref, activityId } = await posted();
    const res = await rig.deliver(
      submitMessage(rig.fake.serviceUrl, conversationId, activityId, 'hitl:k7Qa9:reject', ANN),
    );
    expect(res.status).toBe(200);
    expect(rig.taps).toEqual([
      { platform: 'teams', key: 'k7Qa9', action: 'reject', user: ANN, ref },
    ]);
  });
  it('says a refused Action.Submit answer (older clients) in the conversation, with its field messages', async () => {
    const { conversationId, activityId } = await posted(async () => ({
      outcome: 'invalid_answer',
      text: 'That answer is not valid: 2 problems',
      card: null,
      issues: [
        { path: 'name', message: 'is required' },
        { path: 'count', message: 'must be at most 5' },
      ],
    }));
    const before = rig.fake.conversation(conversationId).length;
    const res = await rig.deliver(
      submitMessage(rig.fake.serviceUrl, conversationId, activityId, 'hitl:k7Qa9:submit', ANN),
    );
    expect(res.status).toBe(200);
    const said = rig.fake.conversation(conversationId).slice(before);
    expect(said.map((m) => m.versions[0]?.text)).toEqual([
      `${ANN.name}: That answer is not valid: 2 problems\n• name: is required\n• count: must be at most 5`,
    ]);
    expect(said[0]?.versions[0]).toMatchObject({ type: 'message', textFormat: 'plain' });
  });

  it('says nothing more for a submitted Action.Submit answer (the card update tells everyone)', async () => {
    const { conversationId, activityId } = await posted();
    const before = rig.fake.conversation(conversationId).length;
    const res = await rig.deliver(
      submitMessage(rig.fake.serviceUrl, conversationId, activityId, 'hitl:k7Qa9:approve', ANN),
    );
    expect(res.status).toBe(200);
    expect(rig.fake.conversation(conversationId)).toHaveLength(before);
  });
});

describe('inbound requests', () => {
  it('refuses an unauthenticated request when an app id is configured', async () => {
    rig = await startRig({
      config: {
        appId: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
        appPassword: 'not-used-in-this-test-0123456789',
        allowUnauthenticated: false,
      },
    });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await rig.deliver(
      executeInvoke(rig.fake.serviceUrl, channelId(), '1', 'hitl:k7Qa9:approve', ANN),
    );
    errors.mockRestore();
    expect(res.status).toBe(401);
    expect(rig.taps).toHaveLength(0);
    expect(rig.fake.requests()).toHaveLength(0);
  });

  it('warns loudly at start in unauthenticated mode', async () => {
    rig = await startRig();
    expect(rig.logLines.join('')).toContain('TEAMS AUTHENTICATION IS OFF');
  });

  it('answers 400 to a body that is not an activity', async () => {
    rig = await startRig();
    const route = rig.adapter.routes[0]!;
    const req = {
      method: 'POST',
      path: '/api/messages',
      query: new URLSearchParams(),
      headers: {},
      rawBody: Buffer.from('{nope'),
      params: {},
    };
    expect((await route.handle(req)).status).toBe(400);
  });

  it('sends no credentials in test mode and no secret ever reaches the connector', async () => {
    rig = await startRig();
    const { key } = await rig.install();
    await rig.adapter.post(key, makeCard());
    for (const r of rig.fake.recordedRequests()) expect(r.headers.authorization).toBeUndefined();
    expect(rig.fake.requests().join('\n')).not.toMatch(/submit_token|Bearer/i);
  });
});
