import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createSlackAdapter } from '../../../platforms/slack/index.ts';

const manifest = parse(
  readFileSync(new URL('../../../platforms/slack/manifest.yml', import.meta.url), 'utf8'),
);

describe('slack manifest', () => {
  const adapter = createSlackAdapter({
    botToken: 'xoxb-1111-2222-fakeBotTokenForManifest',
    signingSecret: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
    mode: 'http',
  });
  const mounted = adapter.routes.map((r) => `${r.method} ${r.path}`);

  it('points interactivity and /hitl at a route the adapter really mounts', () => {
    const interactivity = new URL(manifest.settings.interactivity.request_url);
    const command = manifest.features.slash_commands.find(
      (c: { command: string }) => c.command === '/hitl',
    );
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(mounted).toContain(`POST ${interactivity.pathname}`);
    expect(mounted).toContain(`POST ${new URL(command.url).pathname}`);
  });

  it('asks for exactly the scopes the adapter uses, in HTTP mode', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([
      'chat:write',
      'commands',
      'users:read',
    ]);
    expect(manifest.settings.socket_mode_enabled).toBe(false);
  });

  it('mounts no route in Socket Mode', () => {
    const socket = createSlackAdapter({
      botToken: 'xoxb-1111-2222-fakeBotTokenForManifest',
      appToken: 'xapp-1-A111-222-fakeAppTokenForManifest',
      mode: 'socket',
    });
    expect(socket.routes).toEqual([]);
  });
});
