import { describe, expect, it } from 'vitest';
import {
  activityIdOf,
  baseConversationId,
  conversationKey,
  parseExecuteInvoke,
  parsePayload,
  parseSubmitMessage,
  teamsMessageRef,
} from '../../../platforms/teams/parse.ts';
import { fixture } from './helpers.ts';

describe('conversation keys', () => {
  it('are 16 base64url characters, the same for a channel and its threads', () => {
    const channel = '19:malejcou081i20ojmlcau0@thread.skype';
    const key = conversationKey(channel);
    expect(key).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(conversationKey(`${channel};messageid=1498171086622`)).toBe(key);
    expect(conversationKey('19:other@thread.skype')).not.toBe(key);
    expect(baseConversationId(`${channel};messageid=1`)).toBe(channel);
  });

  it('round-trip the activity id through a MessageRef', () => {
    const ref = teamsMessageRef('AbCdEfGhIjKlMnOp', '1:1abc');
    expect(ref).toEqual({
      platform: 'teams',
      address: 'AbCdEfGhIjKlMnOp',
      id: 'AbCdEfGhIjKlMnOp:1:1abc',
    });
    expect(activityIdOf(ref)).toBe('1:1abc');
    expect(activityIdOf({ ...ref, platform: 'slack' })).toBeNull();
    expect(activityIdOf({ ...ref, id: 'other:1' })).toBeNull();
  });
});

describe('parsePayload', () => {
  it('splits hitl:<key>:<action> and refuses anything else', () => {
    expect(parsePayload('hitl:k7Qa9:approve')).toEqual({ key: 'k7Qa9', action: 'approve' });
    expect(parsePayload('hitl:k7Qa9')).toBeNull();
    expect(parsePayload('other:k:approve')).toBeNull();
    expect(parsePayload('hitl:k:a:b')).toBeNull();
    expect(parsePayload(42)).toBeNull();
  });
});

describe('parseExecuteInvoke (docs fixture)', () => {
  it('reads payload, person and the tapped card from an adaptiveCard/action invoke', () => {
    const activity = fixture('invoke-adaptive-card-action');
    (activity.value as { action: { data: unknown } }).action.data = { hitl: 'hitl:k7Qa9:approve' };
    const conversation = (activity.conversation as { id: string }).id;
    expect(parseExecuteInvoke(activity)).toEqual({
      platform: 'teams',
      key: 'k7Qa9',
      action: 'approve',
      user: {
        id: '29:1Eniglq0-uVL83xNB9GU6w_G5a4SZF0gcJLprZzhtEbel21G_5h-NgoprRw45mP0AXUIZVeqrsIHSYV4ntgfVJQ',
        name: 'John Doe',
      },
      ref: teamsMessageRef(conversationKey(conversation), '1575667808184'),
    });
  });

  it('falls back to the verb when data carries no payload', () => {
    const activity = fixture('invoke-adaptive-card-action');
    (activity.value as { action: { verb: string } }).action.verb = 'hitl:k7Qa9:reject';
    expect(parseExecuteInvoke(activity)?.action).toBe('reject');
  });

  it('ignores other invokes and foreign verbs', () => {
    const activity = fixture('invoke-adaptive-card-action');
    expect(parseExecuteInvoke(activity)).toBeNull(); // verb "def", no payload
    expect(parseExecuteInvoke({ ...activity, name: 'task/fetch' })).toBeNull();
    expect(parseExecuteInvoke({ ...activity, value: 'x' })).toBeNull();
  });

  it('has no ref without replyToId', () => {
    const activity = fixture('invoke-adaptive-card-action');
    (activity.value as { action: { data: unknown } }).action.data = { hitl: 'hitl:k:approve' };
    delete activity.replyToId;
    expect(parseExecuteInvoke(activity)?.ref).toBeNull();
  });
});

describe('parseSubmitMessage (docs fixture)', () => {
  it('reads an Action.Submit message: value.hitl and replyToId', () => {
    const activity = fixture('message-action-submit');
    activity.value = { hitl: 'hitl:k7Qa9:approve' };
    const tap = parseSubmitMessage(activity);
    expect(tap).toMatchObject({
      key: 'k7Qa9',
      action: 'approve',
      user: { id: '29:102jd210jd010icsoaeclaejcoa9ue09u', name: 'John Smith' },
      ref: {
        address: conversationKey('19:malejcou081i20ojmlcau0@thread.skype'),
        id: expect.stringMatching(/:1575667808184$/),
      },
    });
  });

  it('ignores ordinary messages and foreign values', () => {
    expect(parseSubmitMessage(fixture('message-action-submit'))).toBeNull();
    expect(parseSubmitMessage(fixture('message-mention-channel'))).toBeNull();
  });
});
