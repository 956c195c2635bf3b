import { readFileSync } from 'node:fs';
import type { Update } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import {
  parseCallbackData,
  parseCallbackQuery,
  parseMessageRef,
  refFromMessage,
  targetReply,
} from '../../../platforms/telegram/parse.ts';

function fixture(name: string): Update {
  return JSON.parse(
    readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'),
  ) as Update;
}

function query(name: string) {
  const q = fixture(name).callback_query;
  if (!q) throw new Error(`${name} has no callback_query`);
  return q;
}

describe('telegram parse', () => {
  it('reads a tap in a group: key, action, who, and the message ref', () => {
    expect(parseCallbackQuery(query('callback-query-group'))).toEqual({
      platform: 'telegram',
      key: 'k7Qx2',
      action: 'approve',
      user: { id: '111222333', name: 'Ann Example' },
      ref: { platform: 'telegram', address: '-1001234567890', id: '-1001234567890:57' },
    });
  });

  it('names a person by first name alone, else by username', () => {
    expect(parseCallbackQuery(query('callback-query-private-first-name'))?.user).toEqual({
      id: '444555666',
      name: 'Bo',
    });
    const tap = parseCallbackQuery(query('callback-query-username-only'));
    expect(tap?.user).toEqual({ id: '777888999', name: 'cee_ops' });
    // A key may itself hold a colon: the action is after the last one.
    expect(tap).toMatchObject({ key: 'a:b', action: 'select' });
  });

  it('gives no ref for an inaccessible message (date 0) or an inline message', () => {
    expect(parseCallbackQuery(query('callback-query-inaccessible'))).toMatchObject({
      key: 'k7Qx2',
      action: 'reject',
      ref: null,
    });
    expect(parseCallbackQuery(query('callback-query-inline-message'))).toMatchObject({
      action: 'approve',
      ref: null,
    });
    expect(refFromMessage(undefined)).toBeNull();
  });

  it('ignores buttons that are not ours', () => {
    expect(parseCallbackQuery(query('callback-query-foreign'))).toBeNull();
    for (const data of [undefined, '', 'hitl:', 'hitl:k', 'hitl::approve', 'hitl:k:', 'HITL:k:a']) {
      expect(parseCallbackData(data)).toBeNull();
    }
    expect(parseCallbackData('hitl:k:approve')).toEqual({ key: 'k', action: 'approve' });
  });

  it('reads refs back and refuses foreign ones', () => {
    expect(parseMessageRef({ platform: 'telegram', address: '-100', id: '-100:7' })).toEqual({
      chatId: '-100',
      messageId: 7,
    });
    expect(parseMessageRef({ platform: 'slack', address: 'C1', id: '-100:7' })).toBeNull();
    expect(parseMessageRef({ platform: 'telegram', address: '-100', id: '7' })).toBeNull();
  });

  it('answers /hitl_id with the chat target in plain text', () => {
    const message = fixture('command-hitl-id-group').message;
    if (!message) throw new Error('no message');
    const reply = targetReply(message.chat);
    expect(reply).toContain('telegram:-1001234567890');
    expect(reply).toMatch(/give it to your agent/i);
  });
});
