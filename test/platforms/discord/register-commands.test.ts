import { afterEach, describe, expect, it } from 'vitest';
import { DISCORD_BOT_PERMISSIONS, discordInviteUrl } from '../../../platforms/discord/commands.ts';
import { main } from '../../../platforms/discord/register-commands.ts';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord-api.ts';
import { TEST_DISCORD_APPLICATION_ID, TEST_DISCORD_TOKEN } from './harness.ts';

let fake: FakeDiscord | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { log: (l: string) => out.push(l), error: (l: string) => err.push(l) } };
}

describe('register-commands', () => {
  it('PUTs /hitl with the id subcommand and prints the invite URL', async () => {
    fake = await startFakeDiscord({
      token: TEST_DISCORD_TOKEN,
      applicationId: TEST_DISCORD_APPLICATION_ID,
    });
    const env = {
      DISCORD_TOKEN: TEST_DISCORD_TOKEN,
      DISCORD_APPLICATION_ID: TEST_DISCORD_APPLICATION_ID,
      DISCORD_API_URL: fake.apiUrl,
    };
    const c = capture();
    expect(await main([], env, c.io)).toBe(0);
    const put = fake.requests().find((r) => r.method === 'PUT');
    expect(put?.path).toBe(`/api/v10/applications/${TEST_DISCORD_APPLICATION_ID}/commands`);
    expect(put?.authorization).toBe(`Bot ${TEST_DISCORD_TOKEN}`);
    expect(put?.body).not.toContain(TEST_DISCORD_TOKEN);
    const [command, pending] = fake.commands(TEST_DISCORD_APPLICATION_ID) as Array<
      Record<string, unknown>
    >;
    expect(command).toMatchObject({ name: 'hitl', type: 1, options: [{ type: 1, name: 'id' }] });
    expect(pending).toMatchObject({
      name: 'pending',
      type: 1,
      options: [{ type: 5, name: 'mine' }],
    });
    expect(c.out.join('\n')).toContain(discordInviteUrl(TEST_DISCORD_APPLICATION_ID));

    const g = capture();
    expect(await main(['--guild', '1000000000000000001'], env, g.io)).toBe(0);
    expect(fake.commands(`${TEST_DISCORD_APPLICATION_ID}/1000000000000000001`)).toHaveLength(2);
  });

  it('fails clearly without a token or with a wrong one, never printing the token', async () => {
    fake = await startFakeDiscord({
      token: TEST_DISCORD_TOKEN,
      applicationId: TEST_DISCORD_APPLICATION_ID,
    });
    const none = capture();
    expect(await main([], {}, none.io)).toBe(2);
    const wrongToken = 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.Gwrong.another-fake-token-abcdef0123456789';
    const wrong = capture();
    const code = await main(
      [],
      {
        DISCORD_TOKEN: wrongToken,
        DISCORD_APPLICATION_ID: TEST_DISCORD_APPLICATION_ID,
        DISCORD_API_URL: fake.apiUrl,
      },
      wrong.io,
    );
    expect(code).toBe(1);
    expect(wrong.err.join('\n')).toMatch(/forbidden/);
    expect(wrong.err.join('\n')).not.toContain(wrongToken);
  });

  it('asks for bot + applications.commands and View Channel, Send Messages, Embed Links, Read Message History', () => {
    expect(DISCORD_BOT_PERMISSIONS).toBe(84992n);
    const url = new URL(discordInviteUrl(TEST_DISCORD_APPLICATION_ID));
    expect(url.searchParams.get('scope')).toBe('bot applications.commands');
    expect(url.searchParams.get('permissions')).toBe('84992');
    expect(url.searchParams.get('client_id')).toBe(TEST_DISCORD_APPLICATION_ID);
  });
});
