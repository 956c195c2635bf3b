import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  messageRef,
  parseBlockActions,
  parsePayload,
  parseSlashCommand,
  splitRef,
  targetAnswer,
} from '../../../platforms/slack/parse.ts';

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);
type Json = Record<string, any>;
const approve = (): Json => JSON.parse(readFileSync(fixture('block-actions-approve.json'), 'utf8'));

/** The same payload, as if the person had tapped another button of the message. */
function tapOn(actionId: string): Json {
  const body = approve();
  const button = body.message.blocks[2].elements.find((e: Json) => e.action_id === actionId);
  body.actions = [
    {
      type: 'button',
      block_id: '=qXel',
      action_id: button.action_id,
      text: button.text,
      ...(button.value ? { value: button.value } : {}),
      action_ts: '1548426417.840180',
    },
  ];
  return body;
}

describe('slack parse', () => {
  it('turns the documented block_actions payload into a Tap', () => {
    expect(parseBlockActions(approve())).toEqual({
      kind: 'tap',
      channel: 'CBR2V3XEX',
      tap: {
        platform: 'slack',
        key: 'k7Qx2',
        action: 'approve',
        user: { id: 'UA8RXUSPL', name: 'jtorrance' },
        ref: { platform: 'slack', address: 'CBR2V3XEX', id: 'CBR2V3XEX:1548261231.000200' },
      },
    });
  });

  it('marks a tap on a button with a confirm dialog as confirmed', () => {
    const parsed = parseBlockActions(tapOn('hitl:k7Qx2:reject'));
    expect(parsed.kind).toBe('tap');
    if (parsed.kind !== 'tap') return;
    expect(parsed.tap.action).toBe('reject');
    expect(parsed.tap.confirmed).toBe(true);
    expect((parseBlockActions(approve()) as { tap: { confirmed?: boolean } }).tap.confirmed).toBe(
      undefined,
    );
  });

  it('recognises the Details URL button (acknowledged only)', () => {
    expect(parseBlockActions(tapOn('hitl:link:k7Qx2'))).toEqual({ kind: 'link' });
  });

  it('ignores what is not ours', () => {
    const foreign = approve();
    foreign.actions[0].value = 'click_me_123';
    expect(parseBlockActions(foreign)).toEqual({ kind: 'ignore' });
    expect(parseBlockActions({ ...approve(), type: 'view_submission' })).toEqual({
      kind: 'ignore',
    });
    expect(parseBlockActions({ ...approve(), actions: [] })).toEqual({ kind: 'ignore' });
    expect(parseBlockActions({ ...approve(), user: {} })).toEqual({ kind: 'ignore' });
    expect(parseBlockActions(null)).toEqual({ kind: 'ignore' });
  });

  it('falls back to the container for channel and ts', () => {
    const body = approve();
    delete body.channel;
    delete body.message;
    const parsed = parseBlockActions(body);
    expect(parsed.kind === 'tap' && parsed.tap.ref).toEqual(
      messageRef('CBR2V3XEX', '1548261231.000200'),
    );
  });

  it('splits payloads and refs', () => {
    expect(parsePayload('hitl:abc:approve')).toEqual({ key: 'abc', action: 'approve' });
    expect(parsePayload('hitl:abc')).toBeNull();
    expect(parsePayload('other:abc:approve')).toBeNull();
    expect(splitRef(messageRef('C1', '1.000200'))).toEqual({ channel: 'C1', ts: '1.000200' });
    expect(splitRef({ platform: 'slack', address: 'C1', id: 'nonsense' })).toBeNull();
    expect(splitRef({ platform: 'telegram', address: 'C1', id: 'C1:1.2' })).toBeNull();
  });

  it('reads the documented slash command form', () => {
    const form = Object.fromEntries(
      new URLSearchParams(readFileSync(fixture('slash-command.txt'), 'utf8').trim()),
    );
    expect(parseSlashCommand(form)).toEqual({
      command: '/hitl',
      text: 'id',
      channelId: 'C2147483705',
      userId: 'U2147483697',
    });
    expect(parseSlashCommand({ command: '/hitl' })).toBeNull();
    expect(targetAnswer('C2147483705')).toContain('slack:C2147483705');
  });
});
