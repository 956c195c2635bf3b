/**
 * The published shape: the build (tsconfig.build.json) compiles, every `exports` entry of
 * package.json points at a built file, and the built client and relay import with plain node.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
// Inside node_modules, so the built files resolve their dependencies as an installed package does.
const out = resolve('node_modules/.cache', `hitl-relay-build-${process.pid}`);
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('builds, maps every export to a built file, and imports with plain node', {
  timeout: 120_000,
}, async () => {
  mkdirSync(out, { recursive: true });
  await run(process.execPath, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.build.json',
    '--outDir',
    out,
  ]);
  cpSync('templates', join(out, 'templates'), { recursive: true });
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const built = (target: string) => join(out, target.replace(/^\.\/dist\//, ''));
  for (const [name, entry] of Object.entries(pkg.exports as Record<string, any>)) {
    if (name === './package.json') continue;
    const targets = [entry.types, entry.default].map((t: string) =>
      built(t.replace('*', name === './platforms/*' ? 'web' : '*')),
    );
    for (const t of targets) expect(existsSync(t), `${name} -> ${t}`).toBe(true);
  }
  expect(pkg.bin['hitl-relay']).toBe('./bin/hitl-relay.js');
  expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'bin', 'templates']));

  const script = `
    const client = await import(${JSON.stringify(`file://${built(pkg.exports['./client'].default)}`)});
    const main = await import(${JSON.stringify(`file://${built(pkg.exports['.'].default)}`)});
    const web = await import(${JSON.stringify(`file://${join(out, 'platforms/web/index.js')}`)});
    const relay = main.createRelay({
      config: main.readConfig({ PORT: '0', DATA_DIR: ${JSON.stringify(join(out, 'data'))}, LOG_LEVEL: 'silent' }),
      adapters: [web.createWebAdapter()],
    });
    await relay.start();
    const cases = await new client.RelayClient({ relayUrl: relay.url }).list();
    await relay.stop();
    console.log(JSON.stringify({ client: Object.keys(client).sort(), cases: cases.length }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  const result = JSON.parse(stdout);
  expect(result.cases).toBe(0);
  expect(result.client).toEqual(
    expect.arrayContaining([
      'RelayClient',
      'RelayError',
      'approvalOf',
      'createHitlFetch',
      'deriveNotifySecret',
      'hitlInterceptor',
      'verifyNotifySignature',
    ]),
  );
});
