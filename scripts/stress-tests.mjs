#!/usr/bin/env node
// Runs test files again and again while CPU burners keep every core busy, as a loaded CI machine
// would: a test that fails here is a flaky test (issue 18's acceptance for the crash and restart
// tests). Usage:
//   node scripts/stress-tests.mjs [--runs 20] [--burners N] [--project integration] test/e2e/restart.test.ts ...
// (--project picks a vitest project of vitest.config.ts; without it each file runs in its own.)
// Prints one line per run and a summary; exits 1 when any run failed.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
};
const runs = Number(opt('runs', 20));
const burners = Number(opt('burners', availableParallelism()));
const project = opt('project', undefined);
const files = args;
if (!files.length) {
  console.error('usage: stress-tests.mjs [--runs N] [--burners N] [--project P] <test files...>');
  process.exit(2);
}

// Each burner spins one core at full load until it is killed.
const burn = Array.from({ length: burners }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopBurners = () => {
  for (const b of burn) b.kill('SIGKILL');
};
process.on('exit', stopBurners);
process.on('SIGINT', () => process.exit(130));

const run = () =>
  new Promise((resolve) => {
    const started = Date.now();
    const only = project ? ['--project', project] : [];
    const child = spawn('npx', ['vitest', 'run', ...only, ...files], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, ms: Date.now() - started, out }));
  });

let failed = 0;
for (let i = 1; i <= runs; i++) {
  const r = await run();
  if (r.code !== 0) failed++;
  console.log(
    `run ${i}/${runs}: ${r.code === 0 ? 'passed' : 'FAILED'} in ${(r.ms / 1000).toFixed(1)} s`,
  );
  if (r.code !== 0)
    console.log(
      r.out
        .split('\n')
        .filter((l) => /FAIL|Error|×/.test(l))
        .slice(0, 12)
        .join('\n'),
    );
}
console.log(`${runs - failed}/${runs} runs passed with ${burners} CPU burner(s) beside them`);
stopBurners();
process.exit(failed ? 1 : 0);
