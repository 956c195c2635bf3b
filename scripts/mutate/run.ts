/**
 * `npm run mutate`: the curated mutation check of docs/CONFORMANCE.md (issue 31). Each break in
 * breaks.ts is applied, one at a time, to a throwaway copy of the checkout; only the tests named for
 * it run; a break is caught when at least one of them fails. Prints a table and
 * "caught N of M breaks"; exits 1 when a break survives (or when the named tests fail with no break
 * applied, which would make every break look caught).
 *
 * Why curated breaks and not Stryker: a conformance row is a sentence of the spec, and the question
 * is "does a named test fail when the code stops doing what the row says". A hand-written break
 * says that in one line per row (and breaks.test.ts keeps each break's text present); generic
 * mutants (every operator, every literal) answer a different question, most of them on code no row
 * is about, and take hours on the 2-core CI machine where one integration file needs seconds.
 *
 * The working tree is never written: the copy is made in a temporary folder (node_modules
 * linked, not copied) and removed afterwards. `npm run mutate -- M-ORIGIN-2 M-SSE-6` runs some;
 * `--keep` leaves the copy for a look.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BREAKS, type Break, countOf, editsOf } from './breaks.ts';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const SKIP = new Set(['node_modules', '.git', 'dist', 'data', 'coverage', '.bench-out']);

/** What one vitest run of a break came to. */
interface Run {
  ran: number;
  failed: string[];
  /** A file that could not even load (the break is not valid code): not a test's catch. */
  loadError: string | undefined;
  seconds: number;
}

function copyCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-mutate-'));
  cpSync(ROOT, dir, {
    recursive: true,
    filter: (src) => !SKIP.has(src.slice(ROOT.length + 1).split('/')[0] ?? ''),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** A vitest -t pattern for test names with one of `names` in them: an id ("ORIGIN-2 …") or a title. */
function namePattern(names: readonly string[]): string {
  const one = (n: string) =>
    /^[A-Z]+-\d+$/.test(n) ? `${n} ` : n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `(${names.map(one).join('|')})`;
}

function vitest(
  dir: string,
  files: readonly string[],
  ids: readonly string[],
  extra: readonly string[] = ['--bail=1'],
): Run {
  const out = join(dir, '.mutate-result.json');
  rmSync(out, { force: true });
  const started = Date.now();
  spawnSync(
    process.execPath,
    [
      join(dir, 'node_modules/vitest/vitest.mjs'),
      'run',
      ...files,
      '-t',
      namePattern(ids),
      '--reporter=json',
      `--outputFile=${out}`,
      ...extra,
    ],
    {
      cwd: dir,
      stdio: 'ignore',
      timeout: 300_000,
      env: {
        ...process.env,
        HITL_PROTOCOL_DIR:
          process.env.HITL_PROTOCOL_DIR || resolve(ROOT, '../shared/hitl-protocol'),
      },
    },
  );
  const seconds = (Date.now() - started) / 1000;
  let report: any;
  try {
    report = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    return { ran: 0, failed: [], loadError: 'vitest wrote no report (timeout?)', seconds };
  }
  const failed: string[] = [];
  let ran = 0;
  let loadError: string | undefined;
  for (const file of report.testResults ?? []) {
    const tests = file.assertionResults ?? [];
    if (file.status === 'failed' && tests.length === 0)
      loadError = `${file.name.slice(dir.length + 1)}: ${String(file.message).split('\n')[0]}`;
    for (const t of tests) {
      if (t.status === 'passed' || t.status === 'failed') ran++;
      if (t.status === 'failed')
        failed.push(
          `${t.title} (${String(t.failureMessages?.[0] ?? '')
            .split('\n')[0]
            ?.slice(0, 300)})`,
        );
    }
  }
  return { ran, failed, loadError, seconds };
}

function apply(dir: string, b: Break): () => void {
  const originals = new Map<string, string>();
  for (const e of editsOf(b)) {
    const path = join(dir, e.file);
    const text = readFileSync(path, 'utf8');
    if (!originals.has(path)) originals.set(path, text);
    if (countOf(text, e.from) !== 1)
      throw new Error(`${b.id}: the text to replace is not in ${e.file} exactly once`);
    writeFileSync(
      path,
      text.replace(e.from, () => e.to),
    );
  }
  return () => {
    for (const [path, text] of originals) writeFileSync(path, text);
  };
}

const pad = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));

function main(): number {
  const args = process.argv.slice(2);
  const keep = args.includes('--keep');
  const only = args.filter((a) => !a.startsWith('--'));
  const unknown = only.filter((id) => !BREAKS.some((b) => b.id === id));
  if (unknown.length) {
    console.error(`no such break: ${unknown.join(', ')}`);
    return 2;
  }
  const breaks = only.length ? BREAKS.filter((b) => only.includes(b.id)) : BREAKS;
  const started = Date.now();
  const dir = copyCheckout();
  try {
    // Without any break every named test must pass, else a failure would be counted as a catch.
    // Retried there (a test failing once on a loaded machine is not a catch); a break's own run is
    // not, since a test that fails because of the break fails every time.
    const files = [...new Set(breaks.flatMap((b) => b.tests))];
    const ids = [...new Set(breaks.flatMap((b) => b.names))];
    const base = vitest(dir, files, ids, ['--retry=2']);
    if (base.loadError || base.failed.length || base.ran === 0) {
      console.error(
        `the named tests do not pass without a break (${base.loadError ?? base.failed.join('; ') ?? 'none ran'}): fix them first`,
      );
      return 1;
    }
    console.log(`baseline: ${base.ran} named tests pass (${base.seconds.toFixed(0)} s)\n`);
    console.log(`${pad('break', 22)} ${pad('result', 9)} ${pad('s', 4)} caught by / why not`);
    let caught = 0;
    const survivors: string[] = [];
    for (const b of breaks) {
      const restore = apply(dir, b);
      let r: Run;
      try {
        r = vitest(dir, b.tests, b.names);
      } finally {
        restore();
      }
      const ok = !r.loadError && r.ran > 0 && r.failed.length > 0;
      if (ok) caught++;
      else survivors.push(b.id);
      const why = r.loadError
        ? `invalid break: ${r.loadError}`
        : r.ran === 0
          ? 'no named test ran'
          : ok
            ? r.failed.join('; ')
            : `survived ${r.ran} tests: ${b.what}`;
      console.log(
        `${pad(b.id, 22)} ${pad(ok ? 'caught' : 'SURVIVED', 9)} ${pad(r.seconds.toFixed(0), 4)} ${pad(why, 110)}`,
      );
    }
    const total = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`\ncaught ${caught} of ${breaks.length} breaks (${total} s)`);
    if (survivors.length) console.log(`survived: ${survivors.join(', ')}`);
    return survivors.length ? 1 : 0;
  } finally {
    if (keep) console.log(`copy kept at ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = main();
