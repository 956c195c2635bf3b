/**
 * The installable client: `npm pack ./packages/client` gives a tarball that installs into an empty
 * project with a handful of packages (no platform SDK, no native build) and runs an approval
 * against a live relay. Offline: undici and zod are packed from this repository's node_modules.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type DemoHandle, type RelayHandle, startDemo, startRelay } from '../helpers/relay-env.ts';
import { tapWhenPosted } from './helpers.ts';

const run = promisify(execFile);
const root = resolve('.');
const work = mkdtempSync(join(tmpdir(), 'hitl-client-pkg-'));
let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  rmSync(work, { recursive: true, force: true });
});

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

/** Every installed package under node_modules (scoped ones included). */
function installed(dir: string): string[] {
  const names: string[] = [];
  for (const d of readdirSync(dir)) {
    if (d.startsWith('.')) continue;
    if (d.startsWith('@')) for (const s of readdirSync(join(dir, d))) names.push(`${d}/${s}`);
    else names.push(d);
  }
  return names;
}

it('packs, installs offline into an empty project with <= 10 packages, and runs an approval', {
  timeout: 120_000,
}, async () => {
  const pkg = JSON.parse(readFileSync('packages/client/package.json', 'utf8'));
  const relayPkg = JSON.parse(readFileSync('package.json', 'utf8'));
  // The client's dependencies are the relay's own, at the same versions.
  for (const [name, version] of Object.entries(pkg.dependencies))
    expect(relayPkg.dependencies[name], name).toBe(version);

  // npm pack runs the package's build (prepare): no dist/ needs to exist beforehand.
  rmSync('packages/client/dist', { recursive: true, force: true });
  const packed = await npm(
    ['pack', join(root, 'packages/client'), '--pack-destination', work, '--json'],
    root,
  );
  const [info] = JSON.parse(packed.stdout);
  const files = info.files.map((f: { path: string }) => f.path);
  expect(files).toContain('dist/src/client/index.js');
  expect(files).toContain('dist/src/client/index.d.ts');
  expect(files.filter((f: string) => /platforms|cases\/|server\//.test(f))).toEqual([]);
  await npm(
    [
      'pack',
      '--ignore-scripts',
      join(root, 'node_modules/undici'),
      join(root, 'node_modules/zod'),
      '--pack-destination',
      work,
    ],
    root,
  );

  const project = join(work, 'agent');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    '{"name":"agent","version":"1.0.0","type":"module"}',
  );
  const tarballs = readdirSync(work).filter((f) => f.endsWith('.tgz'));
  expect(tarballs).toHaveLength(3);
  await npm(['install', '--offline', ...tarballs.map((t) => join(work, t))], project);
  const names = installed(join(project, 'node_modules'));
  expect(names.sort()).toEqual(['@hitl-relay/client', 'undici', 'zod']);
  expect(names.length).toBeLessThanOrEqual(10);

  // The agent: a 202 from the demo service goes to the relay; a person approves in the web chat.
  writeFileSync(
    join(project, 'agent.mjs'),
    `import { createHitlFetch } from '@hitl-relay/client';
const hitlFetch = createHitlFetch({ relayUrl: process.env.RELAY_URL, target: 'web:pkg' });
const res = await hitlFetch(process.env.SERVICE_URL, { method: 'POST' });
console.log(JSON.stringify({ status: res.hitl.status, approval: res.hitl.approval, by: res.hitl.submitted_by }));
`,
  );
  const child = spawn(process.execPath, ['agent.mjs'], {
    cwd: project,
    env: {
      ...process.env,
      RELAY_URL: relay.url,
      SERVICE_URL: `${demo.url}/api/reviews?type=approval&inline=1`,
    },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  expect(await tapWhenPosted(relay.url, 'pkg', 'approve')).toMatchObject({ outcome: 'submitted' });
  expect(await exited, err).toBe(0);
  expect(JSON.parse(out)).toMatchObject({
    status: 'completed',
    approval: { approved: true },
    by: { platform: 'x-web', platform_user_id: 'ann', display_name: 'Ann' },
  });
});
