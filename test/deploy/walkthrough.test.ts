/**
 * docs/replicas.md's docker compose walkthrough, run as far as this machine allows without a Docker engine:
 * the compiled dist (what the image runs), two relay replicas with the replicas' environment from
 * docker-compose.yml on one PostgreSQL schema, the demo service with its compose environment, and
 * the page's shell blocks run by bash with the compose hosts swapped for these processes.
 * What stands in for compose: no Caddy, so the demo speaks plain HTTP on loopback
 * (RELAY_ALLOW_HTTP_LOOPBACK=1 instead of its local-CA HTTPS) and the relays listen on 127.0.0.1.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { freePort } from '../helpers/process.ts';
import { eventually } from '../helpers/relay-env.ts';

const run = promisify(execFile);
const out = resolve('node_modules/.cache', `hitl-relay-walkthrough-${process.pid}`);
const work = mkdtempSync(join(tmpdir(), 'hitl-walkthrough-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await gone;
    }
  rmSync(out, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** docs/replicas.md's shell blocks of the walkthrough, in order. */
function walkthroughBlocks(): string[] {
  const readme = readFileSync('docs/replicas.md', 'utf8');
  const start = readme.indexOf('<!-- compose-walkthrough:');
  const end = readme.indexOf('Platform credentials go in an optional', start);
  expect(start).toBeGreaterThan(0);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** The "# {...}" line under a block: every "key":"value" (or true/false) in it must be in the output. */
function expectOutputLike(block: string, output: string) {
  const shown = /^# (\{.*\})$/m.exec(block)?.[1];
  expect(shown, 'the page shows the output').toBeDefined();
  const pairs = [...shown!.matchAll(/"(\w+)":("[^"…]*"|true|false)/g)].map(
    (m) => `"${m[1]}":${m[2]}`,
  );
  expect(pairs.length).toBeGreaterThan(1);
  for (const p of pairs) expect(output, p).toContain(p);
  for (const prefix of [...shown!.matchAll(/"(\w+)":"([^"…]+)…"/g)])
    expect(output).toMatch(new RegExp(`"${prefix[1]}":"${prefix[2]}`));
}

/** ${VAR:?msg} / ${VAR:-default} / ${VAR} as compose substitutes them. */
function substitute(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_, name, kind, rest) => {
    if (env[name]) return env[name]!;
    if (kind === '-') return rest;
    throw new Error(`compose would refuse to start: ${name} is not set (${rest})`);
  });
}

/** Starts a process of the dist and waits until `url` answers (with 200 when `ok200`). */
async function start(args: string[], env: Record<string, string>, url: string, ok200 = false) {
  const child = spawn(process.execPath, args, {
    cwd: out,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`exited: ${log}`);
      const status = (await fetch(url).catch(() => null))?.status;
      return ok200 ? status === 200 : status !== undefined;
    },
    30_000,
    `${args.join(' ')} to answer`,
  );
  return { log: () => log };
}

const bash = async (script: string, env: Record<string, string>) =>
  (
    await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: work,
      env: { ...process.env, ...env },
    })
  ).stdout;

it('runs the compose walkthrough as docs/replicas.md shows it: send, sign in to the web chat, approve, read the outcome', {
  timeout: 180_000,
}, async () => {
  const [setup, send, outcome] = walkthroughBlocks();
  expect(setup && send && outcome).toBeTruthy();

  // Block 1: the variables, as the page's export line makes them; compose up = the dist below.
  expect(setup).toContain('docker compose up --build');
  const exported = await bash(`${setup!.split('docker compose up')[0]}\nenv`, {});
  const secrets = Object.fromEntries(
    ['POSTGRES_PASSWORD', 'RELAY_API_KEY', 'RELAY_SECRET_KEY', 'WEB_CHAT_TOKEN'].map((k) => {
      const v = new RegExp(`^${k}=(.+)$`, 'm').exec(exported)?.[1] ?? '';
      expect(v.length, k).toBeGreaterThanOrEqual(16);
      return [k, v];
    }),
  );

  mkdirSync(out, { recursive: true });
  await run(process.execPath, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.build.json',
    '--outDir',
    out,
  ]);
  cpSync('templates', join(out, 'templates'), { recursive: true });

  const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true });
  const demoPort = await freePort();
  const demoEnv = Object.fromEntries(
    Object.entries(compose.services.demo.environment as Record<string, string>).map(([k, v]) => [
      k,
      substitute(v, secrets),
    ]),
  );
  const demoUrl = `http://127.0.0.1:${demoPort}`;
  expect(compose.services.demo.command).toEqual(['node', 'dist/src/demo/serve.js']);
  await start(
    ['src/demo/serve.js'],
    {
      ...demoEnv,
      PORT: String(demoPort),
      HOST: '127.0.0.1',
      DEMO_DB: join(work, 'demo.sqlite'),
      DEMO_BASE_URL: demoUrl,
    },
    `${demoUrl}/api/reviews/none/status`,
  );

  const database = await freshSchemaUrl();
  const replicaEnv = compose.services.relay1.environment as Record<string, string>;
  expect(replicaEnv.HOST).toBe('0.0.0.0');
  const relays: { url: string; log: () => string }[] = [];
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const env = Object.fromEntries(
      Object.entries(replicaEnv).map(([k, v]) => [k, substitute(v, secrets)]),
    );
    delete env.NODE_EXTRA_CA_CERTS; // Caddy's CA: no Caddy here
    const url = `http://127.0.0.1:${port}`;
    const r = await start(
      ['src/cli.js', 'serve'],
      {
        ...env,
        DATABASE_URL: database,
        PORT: String(port),
        HOST: '127.0.0.1',
        RELAY_ALLOW_HTTP_LOOPBACK: '1',
        DATA_DIR: join(work, `data${i}`),
      },
      `${url}/readyz`,
      true,
    );
    relays.push({ url, ...r });
  }
  const [one, two] = relays as [(typeof relays)[0], (typeof relays)[0]];
  // The start-up line comes right after the server listens: wait for it rather than race it.
  await eventually(
    async () =>
      one
        .log()
        .includes(
          'web chat: http://localhost:8080/chat?room=lobby (people sign in with WEB_CHAT_TOKEN)',
        ),
    10_000,
    'the web chat line in the start-up log',
  );

  // Block 2 against replica one (the load balancer's first pick).
  const sent = await bash(
    send!
      .replaceAll('https://demo.localhost:8443', demoUrl)
      .replaceAll('http://localhost:8080', one.url),
    secrets,
  );
  expectOutputLike(send!, sent);
  const id = JSON.parse(sent).id as string;

  // The web chat, at replica two: the sign-in form, then the card; no demo buttons, no /demo.
  const page = await fetch(`${two.url}/chat?room=lobby`);
  expect(page.status).toBe(401);
  expect(await page.text()).toContain('WEB_CHAT_TOKEN');
  expect((await fetch(`${two.url}/web/api/rooms/lobby/messages`)).status).toBe(401);
  expect((await fetch(`${two.url}/demo`)).status).toBe(404);
  const form = (token: string) =>
    fetch(`${two.url}/chat/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, room: 'lobby' }).toString(),
    });
  expect((await form('not-the-token-0000000')).status).toBe(401);
  const signed = await form(secrets.WEB_CHAT_TOKEN!);
  expect(signed.status).toBe(303);
  expect(signed.headers.get('location')).toBe('/chat?room=lobby');
  const cookie = signed.headers.get('set-cookie')!.split(';')[0]!;
  expect(cookie).not.toContain(secrets.WEB_CHAT_TOKEN);
  const chat = await fetch(`${two.url}/chat?room=lobby`, { headers: { cookie } });
  expect(chat.status).toBe(200);
  expect(await chat.text()).not.toContain('class="demo"');
  const card = await eventually(async () => {
    const res = await fetch(`${two.url}/web/api/rooms/lobby/messages`, { headers: { cookie } });
    return ((await res.json()) as any[]).find((m) => m.case === id);
  }, 30_000);
  const tap = await fetch(`${two.url}/web/api/rooms/lobby/messages/${card.id}/actions/approve`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
  });
  expect(await tap.json()).toMatchObject({ outcome: 'submitted' });

  // Block 3 against replica two.
  const done = await bash(outcome!.replaceAll('http://localhost:8080', two.url), secrets);
  expectOutputLike(outcome!, done);
});
