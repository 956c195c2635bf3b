/**
 * Which test files are unit tests: no socket (test/setup/no-sockets.ts makes connect and listen
 * throw), nothing started, fast. Every other file is an integration test (relays, fakes of
 * platforms and services on loopback, PostgreSQL, the browser). A new file is integration until
 * it is listed here; `npx vitest run --project unit` runs these alone.
 */
export const UNIT_TESTS: readonly string[] = [
  'test/asks/answer.test.ts',
  'test/asks/inputs.test.ts',
  'test/asks/native-matrix.test.ts',
  'test/boundaries/imports.test.ts',
  'test/boundaries/unit-project.test.ts',
  'test/cases/ids.test.ts',
  'test/cases/render-case.test.ts',
  'test/cli/warnings.test.ts',
  'test/client/outcome.test.ts',
  'test/config/config.test.ts',
  'test/config/mcp-upstreams.test.ts',
  'test/mcp-gateway/upstream-policy.test.ts',
  'test/mcp/tasks-view.test.ts',
  'test/conformance/agent.test.ts',
  'test/conformance/breaks.test.ts',
  'test/conformance/claims.test.ts',
  'test/conformance/constant-time.test.ts',
  'test/conformance/ids.test.ts',
  'test/docs/api-reference.test.ts',
  'test/docs/configuration.test.ts',
  'test/docs/deploy.test.ts',
  'test/docs/links.test.ts',
  'test/docs/readme.test.ts',
  'test/docs/security.test.ts',
  'test/hitl-service/retention-timer.test.ts',
  'test/mcp-gateway/elicitation-url-ask.test.ts',
  'test/mcp-gateway/tool-gate-ask.test.ts',
  'test/mcp-gateway/tool-gate-config.test.ts',
  'test/pace.test.ts',
  'test/platforms/discord/config.test.ts',
  'test/platforms/discord/modal-fields.test.ts',
  'test/platforms/discord/parse.test.ts',
  'test/platforms/discord/render.test.ts',
  'test/platforms/discord/verify.test.ts',
  'test/platforms/googlechat/render.test.ts',
  'test/platforms/shape.test.ts',
  'test/platforms/slack/config.test.ts',
  'test/platforms/slack/manifest.test.ts',
  'test/platforms/slack/parse.test.ts',
  'test/platforms/slack/verify.test.ts',
  'test/platforms/teams/ask.test.ts',
  'test/platforms/teams/config.test.ts',
  'test/platforms/teams/errors.test.ts',
  'test/platforms/teams/pace.test.ts',
  'test/platforms/teams/package.test.ts',
  'test/platforms/teams/parse.test.ts',
  'test/platforms/teams/render.test.ts',
  'test/platforms/teams/seam.test.ts',
  'test/platforms/telegram/ask.test.ts',
  'test/platforms/telegram/config.test.ts',
  'test/platforms/telegram/pace.test.ts',
  'test/platforms/telegram/parse.test.ts',
  'test/platforms/telegram/verify.test.ts',
  'test/platforms/web-wait.test.ts',
  'test/platforms/whatsapp/render.test.ts',
  'test/policy/expiry-warning.test.ts',
  'test/protocol/hitl.test.ts',
  'test/protocol/notify-signature.test.ts',
  'test/protocol/poll-variants.test.ts',
  'test/receipts/receipt-trust.test.ts',
  'test/receipts/receipt.test.ts',
  'test/render/final-cards.test.ts',
  'test/render/form-summary.test.ts',
  'test/server/openapi-snapshot.test.ts',
  'test/server/paced.test.ts',
  'test/service-client/poll-timing.test.ts',
  'test/store/memory-kv.test.ts',
  'test/store/sealed-answers.test.ts',
  'test/tap/settle.test.ts',
  'test/tap/steps.test.ts',
  'test/watch/holds.test.ts',
];

/**
 * Integration files that take longest (seconds on the 2-core CI machine, quiet), started first
 * so that neither worker waits alone at the end (test/setup/sequencer.ts). Longest first.
 */
export const SLOW_FIRST: readonly string[] = [
  'test/reliability/service-faults.test.ts',
  'test/platforms/discord/gateway.test.ts',
  'test/deploy/walkthrough.test.ts',
  'test/reliability/platform-faults.test.ts',
  'test/reliability/one-tap-one-post.test.ts',
  'test/store/postgres-outage.test.ts',
  'test/watch/hostile-stream.test.ts',
  'test/platforms/slack/adapter.test.ts',
  'test/client/package.test.ts',
  'test/platforms/discord/contract.test.ts',
];

/**
 * Files that run several relay processes and SIGKILL them while hundreds of requests are in
 * flight: each runs alone, after the other projects (project `alone`, one worker). Beside another
 * such file on a busy 2-core machine a replica stalled past a 10 s connect timeout; alone they
 * prove what they prove, not how the machine was shared.
 */
export const ALONE: readonly string[] = [
  'test/replicas/replicas.test.ts',
  'test/reliability/chaos.test.ts',
  'test/reliability/crash.test.ts',
  'test/policy/quorum-replicas.test.ts',
];
