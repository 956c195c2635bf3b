/** Start-up warnings: Details links at loopback while a chat platform is on; a web chat without sign-in on a server. */
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
});
