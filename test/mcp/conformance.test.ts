/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against a real
 * relay's /mcp in the local default (no key, loopback). Every server scenario of the suite runs in
 * one child process; the scenarios that apply to a human-in-the-loop server must pass with every
 * check a success, and the ones that do not apply are a baseline with the reason (docs/mcp.md
 * lists the same): each of those must still fail, and fail for that reason only, so a baseline
 * entry cannot hide a real fault and a new scenario of a later suite cannot slip by unrun.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const CLI = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);

/** The scenarios that apply: the relay must pass them. */
const APPLY = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'dns-rebinding-protection',
  // A 2025 client gets a session id (mcp/legacy-session.ts): three concurrent POST streams.
  'server-sse-multiple-streams',
];

/**
 * The scenarios that do not apply, each with what its failure must say. Most call a fixture tool,
 * resource or prompt of the suite's reference server (test_simple_text, test://static-text, ...):
 * our tools ask a person, so honest answers to those calls do not exist here.
 */
const NOT_FOR_US: Record<string, RegExp> = {
  // Capabilities the server does not declare: answered -32601, as the spec says.
  'logging-set-level': /Method not found/,
  'completion-complete': /Method not found/,
  'resources-subscribe': /Method not found/,
  'resources-unsubscribe': /Method not found/,
  'prompts-list': /Method not found/,
  'prompts-get-simple': /Method not found/,
  'prompts-get-with-args': /Method not found/,
  'prompts-get-embedded-resource': /Method not found/,
  'prompts-get-with-image': /Method not found/,
  // Fixture tools of the reference server.
  'tools-call-simple-text': /Tool test_simple_text not found/,
  'tools-call-image': /Tool test_image_content not found/,
  'tools-call-audio': /Tool test_audio_content not found/,
  'tools-call-embedded-resource': /Tool test_embedded_resource not found/,
  'tools-call-mixed-content': /Tool test_multiple_content_types not found/,
  'tools-call-with-logging': /Method not found/, // logging/setLevel first: no logging capability
  'tools-call-error': /Tool test_error_handling not found/,
  'tools-call-with-progress': /Tool test_tool_with_progress not found/,
  'tools-call-sampling': /Tool test_sampling not found/,
  'tools-call-elicitation': /Tool test_elicitation not found/,
  'elicitation-sep1034-defaults': /Tool test_elicitation_sep1034_defaults not found/,
  'elicitation-sep1330-enums': /Tool test_elicitation_sep1330_enums not found/,
  'json-schema-2020-12': /Tool 'json_schema_2020_12_tool' not found/,
  // Fixture resources of the reference server (ours are hitl://asks/{id}).
  'resources-read-text': /Resource not found: test:\/\/static-text/,
  'resources-read-binary': /Resource not found: test:\/\/static-binary/,
  'resources-templates-read': /Resource not found: test:\/\/template\/123\/data/,
  // Stateless by design (any replica serves any request): a 2025 POST stream is not resumable,
  // so it sends no SSE priming event id and no retry field to reconnect with.
  'server-sse-polling': /priming event|retry field/,
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: { message?: string };
}

let relay: RelayHandle;
let outDir: string;
let run: { code: number | null; stdout: string; stderr: string; ms: number };
/** Scenario name -> its checks, read from the suite's results folder. */
const results = new Map<string, Check[]>();

/** Runs the whole server suite once, bounded: a hung scenario fails the run, it does not stall CI. */
function runSuite(url: string, baseline: string): Promise<typeof run> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        CLI,
        'server',
        '--url',
        url,
        '--suite',
        'all',
        '--expected-failures',
        baseline,
        '-o',
        outDir,
      ],
      { timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? null) : 0,
          stdout,
          stderr,
          ms: Date.now() - started,
        }),
    );
  });
}

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
  outDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const baseline = join(outDir, 'baseline.yml');
  writeFileSync(
    baseline,
    `server:\n${Object.keys(NOT_FOR_US)
      .map((s) => `  - ${s}\n`)
      .join('')}`,
  );
  run = await runSuite(`${relay.url}/mcp`, baseline);
  // Folders are named server-<scenario>-<ISO time>.
  for (const dir of readdirSync(outDir)) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
    if (m?.[1])
      results.set(m[1], JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')));
  }
}, 110_000);
afterAll(async () => {
  await relay?.stop();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('official MCP conformance suite (server scenarios) against /mcp', () => {
  it('runs every scenario of the suite, each one either applying or listed with its reason', () => {
    expect(run.stderr).not.toMatch(/Failed to run scenario/);
    expect([...results.keys()].sort()).toEqual([...APPLY, ...Object.keys(NOT_FOR_US)].sort());
  });

  it('passes its baseline check (no unexpected failure, no stale entry)', () => {
    expect(run.stdout).toContain('Baseline check passed');
    expect(run.code, run.stdout.slice(-3000)).toBe(0);
  });

  it.each(APPLY)('%s: every check succeeds', (scenario) => {
    const checks = results.get(scenario) ?? [];
    expect(checks.some((c) => c.status === 'SUCCESS')).toBe(true);
    const bad = checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO');
    expect(bad).toEqual([]);
  });

  it.each(Object.entries(NOT_FOR_US))(
    '%s does not apply, and fails only for that',
    (scenario, why) => {
      const checks = results.get(scenario) ?? [];
      const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      expect(bad.length).toBeGreaterThan(0);
      for (const c of bad) expect(c.errorMessage ?? c.details?.message ?? '', c.id).toMatch(why);
    },
  );
});
