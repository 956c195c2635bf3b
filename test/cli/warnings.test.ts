/** Start-up warnings: Details links at loopback while a chat platform is on; a web chat without sign-in on a server. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startupWarnings } from '../../src/cli/warnings.ts';
import { readConfig } from '../../src/config/config.ts';

const KEY = 'k'.repeat(24);
const SECRET = 's'.repeat(32);

describe('startupWarnings', () => {
  it('warns when a chat platform is on and Details links would point at loopback', () => {
    const local = readConfig({});
    const [w] = startupWarnings(local, ['web', 'telegram'], 'http://127.0.0.1:8787');
    expect(w).toContain('Details links on telegram cards point at http://127.0.0.1:8787');
    expect(w).toContain('set PUBLIC_URL');
    expect(startupWarnings(local, ['slack'], 'http://localhost:8787')).toHaveLength(1);
    expect(startupWarnings(local, ['web'], 'http://127.0.0.1:8787')).toEqual([]);
    const server = readConfig({
      RELAY_API_KEY: KEY,
      RELAY_SECRET_KEY: SECRET,
      PUBLIC_URL: 'https://relay.example',
    });
    expect(startupWarnings(server, ['telegram'], 'https://relay.example')).toEqual([]);
  });

  it('warns about a web chat without sign-in on a server, and WEB_CHAT_TOKEN turns the chat on', () => {
    const open = readConfig({ RELAY_API_KEY: KEY, RELAY_SECRET_KEY: SECRET, WEB_CHAT: '1' });
    expect(startupWarnings(open, ['web'], 'https://relay.example')[0]).toContain(
      'set WEB_CHAT_TOKEN',
    );
    const signed = readConfig({
      RELAY_API_KEY: KEY,
      RELAY_SECRET_KEY: SECRET,
      WEB_CHAT_TOKEN: 't'.repeat(20),
    });
    expect(signed).toMatchObject({ webChat: true, webChatToken: 't'.repeat(20), host: '0.0.0.0' });
    expect(startupWarnings(signed, ['web'], 'https://relay.example')).toEqual([]);
    expect(readConfig({ RELAY_API_KEY: KEY }).webChat).toBe(false);
  });

  it('warns when a container would listen on its loopback only (docker run -p cannot reach it)', () => {
    const [w] = startupWarnings(readConfig({}), ['web'], 'http://127.0.0.1:8787', true);
    expect(w).toContain('inside a container');
    expect(startupWarnings(readConfig({}), ['web'], 'http://127.0.0.1:8787', false)).toEqual([]);
    const keyed = readConfig({
      RELAY_API_KEY: KEY,
      RELAY_SECRET_KEY: SECRET,
      PUBLIC_URL: 'https://relay.example',
    });
    expect(startupWarnings(keyed, ['web'], 'https://relay.example', true)).toEqual([]);
  });

  it('with RELAY_API_KEY set, a loopback HOST in a container names HOST, not the key it has', () => {
    const config = readConfig({ RELAY_API_KEY: KEY, RELAY_SECRET_KEY: SECRET, HOST: '127.0.0.1' });
    const [w, ...rest] = startupWarnings(config, ['web'], 'https://relay.example', true);
    expect(rest).toEqual([]);
    expect(w).toContain('HOST=127.0.0.1 is set');
    expect(w).not.toContain('set RELAY_API_KEY');
  });

  it('a server without RELAY_SECRET_KEY is told that secrets are stored in plain JSON', () => {
    const plain = readConfig({ RELAY_API_KEY: KEY, PUBLIC_URL: 'https://relay.example' });
    const [w, ...rest] = startupWarnings(plain, ['web'], 'https://relay.example');
    expect(rest).toEqual([]);
    expect(w).toMatch(/^no RELAY_SECRET_KEY: .* plain JSON .* set RELAY_SECRET_KEY/);
    // The local default (no key, loopback only) is not a server: no warning there.
    expect(startupWarnings(readConfig({}), ['web'], 'http://127.0.0.1:8787')).toEqual([]);
  });

  it('LOW-PLATFORMS-1: zero chat platforms (web chat off, none configured) is warned about', () => {
    const server = readConfig({
      RELAY_API_KEY: KEY,
      RELAY_SECRET_KEY: SECRET,
      PUBLIC_URL: 'https://relay.example',
    });
    const [w, ...rest] = startupWarnings(server, [], 'https://relay.example');
    expect(rest).toEqual([]);
    expect(w).toMatch(/^no chat platform is enabled: .*no card reaches a person/);
    expect(w).toContain('WEB_CHAT_TOKEN');
    expect(startupWarnings(server, ['telegram'], 'https://relay.example')).toEqual([]);
  });

  it('LOW-WEB-VOTES-1: a four-eyes policy that counts web chat votes is a loud start-up warning', () => {
    const votes = (env: Record<string, string>, file: Record<string, unknown>) => {
      const path = join(mkdtempSync(join(tmpdir(), 'hitl-web-votes-')), 'relay-config.json');
      writeFileSync(path, JSON.stringify(file));
      const config = readConfig({ ...env, RELAY_CONFIG: path });
      return startupWarnings(config, ['web', 'slack'], 'https://relay.example').filter((w) =>
        w.includes('web chat votes'),
      );
    };
    const open = { RELAY_API_KEY: KEY, RELAY_SECRET_KEY: SECRET, WEB_CHAT: '1' };
    const signed = { RELAY_API_KEY: KEY, RELAY_SECRET_KEY: SECRET, WEB_CHAT_TOKEN: 't'.repeat(20) };
    // A `web:` approver, directly or through an identity.
    const byId = { policies: { pair: { required: 2, approvers: ['web:ann', 'slack:U0BOB'] } } };
    const [w, ...rest] = votes(open, byId);
    expect(rest).toEqual([]);
    expect(w).toMatch(/^policy "pair" counts web chat votes.* self-declared/);
    expect(w).toContain('one person can satisfy it alone');
    const viaIdentity = {
      identities: { 'ann@example.com': ['web:ann'] },
      policies: { pair: { required: 2, approvers: ['ann@example.com', 'slack:U0BOB'] } },
    };
    expect(votes(open, viaIdentity)).toHaveLength(1);
    // No approvers list: anyone on the target votes, so a policy on a web target counts web votes.
    const onRoute = {
      policies: { pair: { required: 2 } },
      routes: { ops: { targets: ['slack:C1', 'web:lobby'], policy: 'pair' } },
    };
    expect(votes(open, onRoute)).toHaveLength(1);
    expect(
      votes(open, { policies: onRoute.policies, target_policies: { 'web:lobby': 'pair' } }),
    ).toHaveLength(1);
    // WEB_CHAT_TOKEN is one shared token, not a person's sign-in: the ids behind it are still declared.
    expect(votes(signed, byId)[0]).toContain('WEB_CHAT_TOKEN is one shared token');
    // Quiet: the web chat off, one vote needed, or no web vote in the count.
    expect(votes({ RELAY_API_KEY: KEY, RELAY_SECRET_KEY: SECRET }, byId)).toEqual([]);
    expect(votes(open, { policies: { one: { required: 1, approvers: ['web:ann'] } } })).toEqual([]);
    const slackOnly = {
      policies: { pair: { required: 2 } },
      routes: { ops: { targets: ['slack:C1'], policy: 'pair' } },
    };
    expect(votes(open, slackOnly)).toEqual([]);
  });

  it('warns when there is no RELAY_API_KEY and HOST reaches beyond loopback (/v1, /mcp and the gateway take anyone)', () => {
    const open = (host: string) =>
      startupWarnings(readConfig({ HOST: host }), ['web'], 'http://127.0.0.1:8787').filter((w) =>
        w.startsWith('no RELAY_API_KEY'),
      );
    for (const host of ['0.0.0.0', '10.0.0.5', '::']) {
      const [w, ...rest] = open(host);
      expect(rest).toEqual([]);
      expect(w).toContain(`listening on ${host}`);
      expect(w).toContain('/mcp/gateway/*');
      expect(w).toContain('set RELAY_API_KEY, or HOST=127.0.0.1');
    }
    for (const host of ['127.0.0.1', 'localhost', '::1']) expect(open(host)).toEqual([]);
    const keyed = readConfig({ RELAY_API_KEY: KEY, RELAY_SECRET_KEY: SECRET, HOST: '0.0.0.0' });
    expect(startupWarnings(keyed, ['web'], 'https://relay.example')).toEqual([]);
  });
});
