/**
 * Asks: an agent asks the relay directly. The relay stores the case in its own HITL service (/asks)
 * and takes the same case in through the ordinary intake (as if a service had answered 202), so
 * watching, notify, /wait, replicas, restart safety and the audit trail all apply. The HTTP API is
 * server/ask-routes.ts.
 */

import { z } from 'zod';
import type { AskAnswer } from '../asks/answer.ts';
import { APPROVAL_KINDS, approvalDecisionOf } from '../asks/approval.ts';
import { type AskContent, askContentOf, kindOf, parseAskContent } from '../asks/content.ts';
import { protocolOf } from '../asks/protocol.ts';
import { caseView } from '../cases/case-view.ts';
import type { Intake } from '../cases/intake.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { Targets } from '../cases/targets.ts';
import { approvalOf, timeoutPolicyOf } from '../client/outcome.ts';
import type { RelayConfig } from '../config/config.ts';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import { type HitlService, ReviewerStepError } from '../hitl-service/index.ts';
import { agentTokenOf, newToken } from '../hitl-service/tokens.ts';
import type { DefaultAction } from '../hitl-service/types.ts';
import type { Logger } from '../log.ts';
import type { Resolve } from '../net/url-policy.ts';
import { parse202Body } from '../protocol/hitl.ts';
import { toIssues } from '../protocol/issues.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Sealer } from '../store/sealer.ts';
import type { Store } from '../store/store.ts';
import type { CaseSecrets, StoredCase } from '../store/types.ts';
import { checkCallbackUrl, rememberCallbackCase } from './callbacks.ts';
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
/** Life of an ask without expires_in / expires_at. */
export const DEFAULT_ASK_SECONDS = 86_400;

const askSchema = z.strictObject({
  target: z.string().min(3).max(300),
  content: z.unknown(),
  expires_in: z.number().int().min(1).max(MAX_ASK_SECONDS).optional(),
  expires_at: z.iso.datetime({ offset: true }).optional(),
  default: z.enum(['skip', 'approve', 'reject', 'abort']).optional(),
  notify_url: z.string().max(2048).optional(),
  // Spec 9: signed callbacks on every terminal event, besides polling (asks-service/callbacks.ts).
  hitl_callback_url: z.string().max(2048).optional(),
  notify_on: z.enum(['final', 'all']).optional(),
  labels: z.record(z.string().max(64), z.string().max(256)).optional(),
});

/** What asks touch of the relay. */
export interface AskDeps {
  store: Store;
  sealer: Pick<Sealer, 'open'>;
  config: Pick<
    RelayConfig,
    | 'publicUrl'
    | 'dataDir'
    | 'databaseUrl'
    | 'retentionMs'
    | 'secretKey'
    | 'allowHttpLoopback'
    | 'allowHosts'
  >;
  log: Logger;
  now: () => number;
  /** Host-name resolution for the hitl_callback_url check (node:dns unless a test gives one). */
  resolve?: Resolve | undefined;
  targets: Pick<Targets, 'resolveTargets' | 'policyFor'>;
  intake: Pick<Intake, 'ingest'>;
  cases: Pick<CaseRepository, 'waitFor'>;
}

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
  const kind = content ? kindOf(content) : null;
  // An approval that ended without an answer (expired, cancelled) is not approved, and says why in
  // the client's words, so /v1/asks and createHitlFetch tell an agent the same thing.
  const ended =
    kind && APPROVAL_KINDS.has(kind) && isTerminal(c.status) && !answer
      ? { approved: false, reason: approvalOf(view).reason ?? c.status }
      : null;
  return {
    id: c.id,
    kind,
    status: c.status,
    final: isTerminal(c.status),
    answer,
    approval: content && answer ? approvalDecisionOf(content, answer) : ended,
    policy: timeoutPolicyOf(view),
    case: view,
  };
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

/** The watch headers of an ask: the relay reads its own asks with its own token. */
const relayHeaders = (relayToken: string) => ({ authorization: `Bearer ${relayToken}` });

/**
 * The submit token of the agent's 202 for a stored ask: derived from the relay's own when the
 * relay keeps one (its watch header is that token), else the one token there is (asks from before).
 */
export function agentSubmitToken(secrets: CaseSecrets): string | undefined {
  const token = secrets.submit_token;
  if (!token) return undefined;
  return secrets.service_headers?.authorization === relayHeaders(token).authorization
    ? agentTokenOf(token)
    : token;
}

/**
 * Creates an ask: stored in the asks service (its 202 body, URLs under `origin` unless PUBLIC_URL
 * says otherwise) and taken in through the ordinary intake. A case the relay refuses is cancelled at
 * the service too, so nobody is left with an ask no card shows.
 */
export async function createAsk(
  relay: AskDeps,
  asks: HitlService,
  raw: unknown,
  origin: string,
  /** More of the case's context, beside `ask` (the tool gate's `tool_call`); never from the API. */
  more?: { context?: Record<string, unknown> },
) {
  const { body, content, mapping, seconds } = checkAsk(relay, raw);
  // Refuse an unknown target and a refused callback destination before a case exists anywhere.
  relay.targets.resolveTargets(body.target);
  await checkCallbackUrl(relay, body.hitl_callback_url);
  // The relay's own token decides (after its vote counting) and reads; the agent's 202 carries one
  // derived from it, which under an approval policy only reads (asks-service/binding in docs).
  const relayToken = newToken();
  const policy = relay.targets.policyFor(body.target);
  const base = `${relay.config.publicUrl ?? origin}${ASKS_MOUNT_PATH}`;
  const created = await asks.create(
    {
      type: mapping.type,
      inline: true,
      prompt: content.prompt,
      expiresInSeconds: seconds,
      callback_url: body.hitl_callback_url ?? null,
      context: { ...more?.context, ask: content },
      inline_actions: mapping.inline_actions,
      message: MESSAGES[content.type],
      default_action: body.default ?? mapping.default_action,
      relayToken,
      ...(policy && { binding: { policy: policy.name, required: policy.required } }),
    },
    base,
  );
  const caseId = created.hitl.case_id as string;
  try {
    const hitl = parse202Body(created, 'response');
    const result = await relay.intake.ingest({
      target: body.target,
      hitl: { ...hitl.hitl, submit_token: relayToken },
      service_headers: relayHeaders(relayToken),
      message: hitl.message,
      warnings: hitl.warnings,
      notify_url: body.notify_url,
      notify_on: body.notify_on,
      labels: body.labels,
    });
    await rememberCallbackCase(relay, body.hitl_callback_url, caseId, result.case.id, seconds);
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

const DEFAULTS = new Set<string>(['skip', 'approve', 'reject', 'abort']);

/**
 * The escalation ladder's final rung on one of the relay's own asks (the relay is the service):
 * closes the ask as expired, with the ladder's policy answer as its default_action when the
 * protocol allows that value. False when `c` is not an ask of this relay (a service's case, or
 * another relay's ask): nothing is sent anywhere then.
 */
export async function closeAskByPolicy(
  asks: Pick<HitlService, 'act'>,
  c: StoredCase,
  action: string,
): Promise<boolean> {
  if (!askContentOf(c.doc.hitl.context)) return false;
  const path = URL.parse(c.doc.hitl.poll_url)?.pathname;
  if (path !== `${ASKS_MOUNT_PATH}/api/reviews/${encodeURIComponent(c.case_id)}/status`)
    return false;
  try {
    await asks.act(c.case_id, {
      step: 'expire',
      ...(DEFAULTS.has(action) ? { default_action: action as DefaultAction } : {}),
    });
    return true;
  } catch (err) {
    if (err instanceof ReviewerStepError && err.status === 404) return false;
    throw err;
  }
}
