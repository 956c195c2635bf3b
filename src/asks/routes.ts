/**
 * `POST /v1/asks`: an agent asks the relay directly. The relay stores the case in its own HITL
 * service (/asks), answers 202 with that service's `hitl` object, and takes the same case in through
 * the ordinary intake (as if a service had answered 202), so watching, notify, /wait, replicas,
 * restart safety and the audit trail all apply. `GET /v1/asks/:id[/wait]` reads it typed.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { caseView } from '../cases/case-view.ts';
import type { DemoService } from '../demo/index.ts';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import { parse202Body } from '../protocol/hitl.ts';
import { toIssues } from '../protocol/issues.ts';
import { isTerminal } from '../protocol/types.ts';
import { readJsonBody } from '../server/inbound.ts';
import type { Services } from '../services.ts';
import type { StoredCase } from '../store/types.ts';
import type { AskAnswer } from './answer.ts';
import { approvalDecisionOf } from './approval.ts';
import { type AskContent, askContentOf, kindOf, parseAskContent } from './content.ts';
import { IdempotencyKey, idempotencyKeyProblem } from './idempotency.ts';
import { protocolOf } from './protocol.ts';
import { ASKS_MOUNT_PATH } from './service.ts';

/** The 202 `message` per family: what a person is asked for. */
const MESSAGES: Record<AskContent['type'], string> = {
  approval: 'An agent asks for your approval.',
  decision: 'An agent asks you to choose.',
  context: 'An agent asks for information only you can give.',
  edit: 'An agent asks you to check and edit its work.',
};

/** Longest life of an ask. */
export const MAX_ASK_SECONDS = 30 * 86_400;
const DEFAULT_ASK_SECONDS = 86_400;

const askSchema = z.strictObject({
  target: z.string().min(3).max(300),
  content: z.unknown(),
  expires_in: z.number().int().min(1).max(MAX_ASK_SECONDS).optional(),
  expires_at: z.iso.datetime({ offset: true }).optional(),
  default: z.enum(['skip', 'approve', 'reject', 'abort']).optional(),
  notify_url: z.string().max(2048).optional(),
  notify_on: z.enum(['final', 'all']).optional(),
  labels: z.record(z.string().max(64), z.string().max(256)).optional(),
});

/** What the asks API touches of the relay. */
export type AskDeps = Pick<
  Services,
  'store' | 'sealer' | 'config' | 'log' | 'now' | 'targets' | 'intake' | 'cases'
>;

const invalid = (issues: ValidationIssue[]) =>
  new ValidationError('invalid_request', 'invalid ask', issues);

/**
 * The typed view of an ask: kind, status, the answer (result.data) and its approval view. `content`
 * is the case's ask content when the caller has it parsed already (parsing is zod, per request).
 */
export async function askView(
  relay: AskDeps,
  c: StoredCase,
  content: AskContent | undefined = askContentOf(c.doc.hitl.context),
) {
  const view = await caseView(relay, c, { history: true });
  const answer = c.status === 'completed' && c.doc.result ? (c.doc.result.data as AskAnswer) : null;
  return {
    id: c.id,
    kind: content ? kindOf(content) : null,
    status: c.status,
    final: isTerminal(c.status),
    answer,
    approval: content && answer ? approvalDecisionOf(content, answer) : null,
    case: view,
  };
}

/** Registers /v1/asks (API-key protection and rate limiting are the app's, as for /v1/cases). */
export function registerAskRoutes(app: Hono, relay: AskDeps, asks: DemoService): void {
  app.post('/v1/asks', async (c) => {
    const read = await readJsonBody(
      c,
      'send {"target": "<platform>:<address>", "content": <the ask>}',
    );
    if (!read.ok) return read.response;
    const raw = read.value;
    // Idempotency-Key: a retried ask answers with the case the first request created.
    const key = c.req.header('idempotency-key');
    let idem: IdempotencyKey | undefined;
    if (key !== undefined) {
      const problem = idempotencyKeyProblem(key);
      if (problem) return c.json({ error: 'invalid_idempotency_key', message: problem }, 400);
      idem = new IdempotencyKey(relay.store.kv, key, raw);
      const early = await replayOrRefuse(c, relay, idem);
      if (early) return early;
    }
    let settled = false;
    try {
      const created = await ask(c, relay, asks, raw);
      if (idem) await idem.settle(created.relay.id);
      settled = true;
      return c.json(created, 202, { 'retry-after': '30' });
    } catch (err) {
      if (idem && !settled) await idem.release();
      if (err instanceof ValidationError)
        return c.json({ error: err.code, message: err.message, details: err.details }, 400);
      throw err;
    }
  });

  const read = async (c: Context, found: StoredCase | undefined) => {
    const content = found && askContentOf(found.doc.hitl.context);
    if (!found || !content)
      return c.json({ error: 'not_found', message: 'no ask with this id' }, 404);
    return c.json(await askView(relay, found, content));
  };
  app.get('/v1/asks/:id', async (c) => read(c, await relay.store.getCase(c.req.param('id'))));
  app.get('/v1/asks/:id/wait', async (c) => {
    const timeout = Number(c.req.query('timeout') ?? 30);
    if (!Number.isFinite(timeout) || timeout < 0 || timeout > 120)
      return c.json({ error: 'invalid_timeout', message: 'timeout must be 0-120 seconds' }, 400);
    return read(c, await relay.cases.waitFor(c.req.param('id'), timeout * 1000));
  });
}

/** The answer to a request whose key was seen before (its case, or why not); null for a new one. */
async function replayOrRefuse(c: Context, relay: AskDeps, idem: IdempotencyKey) {
  const claim = await idem.claim();
  if (claim.kind === 'new') return null;
  if (claim.kind === 'conflict')
    return c.json(
      {
        error: 'idempotency_key_reused',
        message:
          'this Idempotency-Key was used for a different request body; use a new key for a new ask',
      },
      422,
    );
  if (claim.kind === 'in_progress')
    return c.json(
      {
        error: 'idempotency_key_in_use',
        message: 'a request with this Idempotency-Key is still being handled; retry in a moment',
      },
      409,
      { 'retry-after': '1' },
    );
  const found = await relay.store.getCase(claim.id);
  if (!found)
    return c.json(
      {
        error: 'idempotency_case_gone',
        message: 'the ask this Idempotency-Key created is no longer kept; use a new key',
      },
      409,
    );
  // The same 202 as the first time: the hitl object as taken in, its secrets put back.
  const secrets = relay.sealer.open(found.secrets);
  const hitl = {
    ...found.doc.hitl,
    review_url: secrets.review_url,
    ...(secrets.submit_token ? { submit_token: secrets.submit_token } : {}),
  };
  return c.json(
    {
      status: 'human_input_required',
      ...(found.doc.message !== undefined ? { message: found.doc.message } : {}),
      hitl,
      relay: await askView(relay, found),
    },
    202,
    { 'retry-after': '30', 'idempotent-replayed': 'true' },
  );
}

/** The validated ask: its body, content, protocol mapping and lifetime in seconds. */
function checkAsk(relay: AskDeps, raw: unknown) {
  const input = askSchema.safeParse(raw);
  if (!input.success) throw invalid(toIssues(input.error));
  const body = input.data;
  const parsed = parseAskContent(body.content);
  if (!parsed.ok) throw invalid(parsed.issues);
  const content = parsed.content;
  const mapping = protocolOf(content);
  const issues: ValidationIssue[] = [];
  if (body.expires_in !== undefined && body.expires_at !== undefined)
    issues.push({ path: 'expires_at', message: 'give expires_in or expires_at, not both' });
  const seconds =
    body.expires_at !== undefined
      ? Math.round((Date.parse(body.expires_at) - relay.now()) / 1000)
      : (body.expires_in ?? DEFAULT_ASK_SECONDS);
  if (seconds < 1 || seconds > MAX_ASK_SECONDS)
    issues.push({
      path: body.expires_at !== undefined ? 'expires_at' : 'expires_in',
      message: `must be in the future and at most ${MAX_ASK_SECONDS / 86_400} days away`,
    });
  if (body.default && !mapping.defaults.includes(body.default))
    issues.push({
      path: 'default',
      message: `a ${kindOf(content)} ask takes ${mapping.defaults.join(', ')}`,
    });
  if (issues.length) throw invalid(issues);
  return { body, content, mapping, seconds };
}

async function ask(c: Context, relay: AskDeps, asks: DemoService, raw: unknown) {
  const { body, content, mapping, seconds } = checkAsk(relay, raw);
  // Refuse an unknown target before a case exists anywhere.
  relay.targets.resolveTargets(body.target);

  const base = `${relay.config.publicUrl ?? new URL(c.req.url).origin}${ASKS_MOUNT_PATH}`;
  const created = await asks.create(
    {
      type: mapping.type,
      inline: true,
      prompt: content.prompt,
      expiresInSeconds: seconds,
      callback_url: null,
      context: { ask: content },
      own_context: true,
      inline_actions: mapping.inline_actions,
      message: MESSAGES[content.type],
      default_action: body.default ?? mapping.default_action,
    },
    base,
  );
  const caseId = created.hitl.case_id as string;
  try {
    const hitl = parse202Body(created, 'response');
    const result = await relay.intake.ingest({
      target: body.target,
      hitl: hitl.hitl,
      message: hitl.message,
      warnings: hitl.warnings,
      notify_url: body.notify_url,
      notify_on: body.notify_on,
      labels: body.labels,
    });
    relay.log.info(
      { id: result.case.id, case_id: caseId, kind: kindOf(content), type: mapping.type },
      'ask created',
    );
    return { ...created, relay: await askView(relay, result.case, content) };
  } catch (err) {
    // Nobody can answer a case the relay did not take in: close it at the service too.
    await asks
      .act(caseId, { step: 'cancel', reason: 'the relay refused the ask' })
      .catch(() => undefined);
    throw err;
  }
}
