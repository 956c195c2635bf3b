import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  isRawInteraction,
  parseHitlCommand,
  parseTap,
  type RawInteraction,
  splitMessageRefId,
} from '../../../platforms/discord/parse.ts';

const fixture = (name: string): RawInteraction =>
  JSON.parse(
    readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'),
  ) as RawInteraction;

describe('parseTap', () => {
  it('reads a guild button tap (member.user) from the documented sample', () => {
    const raw = fixture('component-guild.json');
    expect(isRawInteraction(raw)).toBe(true);
    expect(parseTap(raw)).toEqual({
      platform: 'discord',
      key: 'k7f3q',
      action: 'approve',
      user: { id: '53908232506183680', name: 'Mason' },
      ref: {
        platform: 'discord',
        address: '345626669114982999',
        id: '345626669114982999:844397162624450620',
      },
    });
  });

  it('reads a DM tap (user) and prefers global_name', () => {
    const tap = parseTap(fixture('component-dm.json'));
    expect(tap?.action).toBe('reject');
    expect(tap?.user).toEqual({ id: '53908232506183680', name: 'Mason' });
    expect(tap?.ref?.address).toBe('345626669114982111');
    expect(tap?.confirmed).toBeUndefined();
  });

  it('ignores buttons that are not ours and other interaction types', () => {
    const raw = fixture('component-guild.json');
    expect(parseTap({ ...raw, data: { custom_id: 'click_one', component_type: 2 } })).toBeNull();
    expect(parseTap({ ...raw, data: { custom_id: 'hitl:a:b:c', component_type: 2 } })).toBeNull();
    expect(parseTap(fixture('command-hitl-id.json'))).toBeNull();
    expect(parseTap(fixture('ping.json'))).toBeNull();
  });
});

describe('parseHitlCommand', () => {
  it('finds the id subcommand of /hitl', () => {
    expect(parseHitlCommand(fixture('command-hitl-id.json'))).toBe('id');
    const other = fixture('command-hitl-id.json');
    expect(parseHitlCommand({ ...other, data: { ...other.data, name: 'cardsearch' } })).toBeNull();
  });
});

describe('message refs', () => {
  it('splits `<channel>:<message>` and refuses anything else', () => {
    expect(splitMessageRefId('1:2')).toEqual({ channelId: '1', messageId: '2' });
    expect(splitMessageRefId('1:2/../x')).toBeNull();
    expect(splitMessageRefId('abc')).toBeNull();
  });
  it('rejects non-interactions', () => {
    expect(isRawInteraction(null)).toBe(false);
    expect(isRawInteraction({ id: '1', type: 'x' })).toBe(false);
  });
});
