/**
 * docs/webhooks.md's notify receiver recipe, run as written (only the package import points at the source):
 * it accepts the relay's real, signed deliveries once per delivery id and refuses a tampered body.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { signNotify } from '../../src/client/index.ts';
import { tapWhenPosted } from '../client/helpers.ts';
import { freePort } from '../helpers/process.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const SECRET = 'the-notify-secret-of-the-recipe-test';
const dir = mkdtempSync(join(tmpdir(), 'hitl-recipe-'));
let child: ChildProcess | undefined;
let out = '';
let url = '';
let demo: DemoHandle;
let relay: RelayHandle;

/** The ```ts block after the notify-recipe marker in docs/webhooks.md. */
function recipeFromReadme(): string {
  const readme = readFileSync('docs/webhooks.md', 'utf8');
  const at = readme.indexOf('<!-- notify-recipe');
  expect(at).toBeGreaterThan(-1);
  const m = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  return m![1]!;
}

beforeAll(async () => {
  const code = recipeFromReadme().replace(
    "'@hitl-relay/client'",
    `'${pathToFileURL(resolve('src/client/index.ts')).href}'`,
  );
  const file = join(dir, 'receiver.ts');
  writeFileSync(file, code);
  const port = await freePort();
  url = `http://127.0.0.1:${port}/hook`;
  child = spawn(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, PORT: String(port), RELAY_NOTIFY_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  await eventually(
    async () => {
      if (child?.exitCode !== null) throw new Error(`the recipe exited: ${out}`);
      return (await post('{}', {}).catch(() => undefined))?.status === 401;
    },
    20_000,
    'the recipe receiver to listen',
  );
  demo = await startDemo();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: { RELAY_NOTIFY_SECRET: SECRET },
  });
});
afterAll(async () => {
  child?.kill();
  await relay?.stop();
  await demo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function post(body: string, headers: Record<string, string>) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

it("takes the relay's signed delivery, once per delivery id, and refuses a tampered body", async () => {
  const response = await demo.create('approval', true);
  const sent = await relay.send('web:recipe', response, { notify_url: url });
  await tapWhenPosted(relay.url, 'recipe', 'approve');
  await eventually(async () => out.includes(`case ${sent.body.id} completed approve`), 10_000);
  const [d] = await relay.relay.services.store.listDeliveries(sent.body.id);
  expect(d).toMatchObject({ state: 'delivered', attempts: 1 });

  const t = Math.floor(Date.now() / 1000);
  const headers = (body: string, at = t) => ({
    'x-hitl-relay-delivery': d!.id,
    'x-hitl-relay-signature': signNotify(body, SECRET, at),
  });
  // A retry of the same delivery: accepted (2xx) and not processed twice.
  expect((await post(d!.body, headers(d!.body))).status).toBe(204);
  // The same signature on a changed body: refused.
  const tampered = d!.body.replace('"approve"', '"reject"');
  expect(tampered).not.toBe(d!.body);
  expect(await post(tampered, headers(d!.body))).toEqual({ status: 401, text: 'mismatch' });
  // Signed with another secret, replayed from an hour ago, or unsigned: refused.
  const other = {
    ...headers(d!.body),
    'x-hitl-relay-signature': signNotify(d!.body, 'x'.repeat(32), t),
  };
  expect(await post(d!.body, other)).toEqual({ status: 401, text: 'mismatch' });
  expect(await post(d!.body, headers(d!.body, t - 3600))).toEqual({ status: 401, text: 'too_old' });
  expect(await post(d!.body, { 'x-hitl-relay-delivery': d!.id })).toEqual({
    status: 401,
    text: 'missing',
  });
  expect(out.split(`case ${sent.body.id} completed`).length - 1).toBe(1);
});
