/**
 * Elicitation answered in chat: the gateway declares `elicitation` (form and url) to every
 * upstream and answers each form-mode `elicitation/create` through an ask of the relay in the
 * upstream's `target` (elicitation-ask.ts maps the schema to a native kind). The person's answer
 * goes back as `accept` with content typed to the schema; a Decline as `decline`; anything else
 * (the ask expired after the upstream's `timeout_seconds`, was withdrawn, could not be shown, the
 * answer does not fit the schema, no target is configured) as `cancel`: the gateway never
 * accepts for a person. A URL-mode request is a consent ask (elicitation-url.ts): Confirm goes back
 * as `accept` without content, and the server's `notifications/elicitation/complete` is recorded
 * on that ask's case. An ask lives no longer than the request that asked it
 * (elicitation-lifetime.ts): withdrawn on abort, at the relay's stop, and at start-up when a
 * previous process left it open.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { AskContentInput } from '../asks/content.ts';
import { createAsk } from '../asks-service/asks.ts';
import type { CardDelivery } from '../cases/card-delivery.ts';
import type { HitlService } from '../hitl-service/index.ts';
import type { McpToolDeps } from '../mcp/tools.ts';
import { AskWaits, waitIsOver } from '../mcp/waits.ts';
import type { StoredCase } from '../store/types.ts';
import { RelayStopping } from './downstream-tasks.ts';
import { contentOf, elicitAsk, type FormRequest } from './elicitation-ask.ts';
import {
  ELICIT_WITHDRAWN,
  ELICITATION_LABEL,
  HOLDER_LABEL,
  isJoinAsk,
  JOIN_LABEL,
  OpenElicitations,
  outlivesStop,
  TASK_KEY_LABEL,
  TASK_LABEL,
  withdrawConfirmed,
  withdrawOrphans,
} from './elicitation-lifetime.ts';
import {
  answerUrl,
  type CompletionDeps,
  type ElicitChat,
  recordCompletion,
  UrlCompletions,
} from './elicitation-url.ts';
import {
  ELICIT_NOT_RETRIED,
  ELICIT_NOT_RETRIED_AFTER_DISCONNECT,
  InputJoins,
  inputFingerprint,
  JOIN_GRACE_MS,
} from './input-join.ts';
import { TaskResumes, type UpstreamOf } from './task-resume.ts';
import type { Upstream } from './upstream.ts';
import type { AnswerInput, TaskInput } from './upstream-tasks.ts';

/** What the elicitation handler uses of the relay. */
export interface ElicitationDeps {
  relay: McpToolDeps;
  asks: HitlService;
  /** The relay's URL (the asks' links; PUBLIC_URL wins inside createAsk). */
  origin: () => string;
  /** Where a URL elicitation's completion is recorded (its case's history and cards). */
  cases: CompletionDeps['cases'];
  /** The relay's card delivery: a withdrawn ask counts once its cards were edited. */
  cards?: Pick<CardDelivery, 'settled'> | undefined;
  /** Names this process on its asks (orphans of a gone process are withdrawn at start-up). */
  instanceId?: string | undefined;
  /** The relay's clock (the grace of the asks a previous process left, input-join.ts). */
  now?: (() => number) | undefined;
}

/** The elicitation result the upstream receives. */
export type ElicitAnswer =
  | { action: 'accept'; content?: Record<string, unknown> }
  | { action: 'decline' | 'cancel' };

const CANCEL = { action: 'cancel' } as const;

/** The gateway's elicitation: `prepare` for every upstream client, and its waits. */
export interface Elicitation {
  prepare(client: Client, upstream: Upstream): void;
  waits: AskWaits;
  /** The open asks (withdrawn on abort and at stop). */
  open: OpenElicitations;
  /**
   * The relay started: withdraws the asks a previous process left open, but resumes those of
   * upstream tasks (task-resume.ts) on the upstreams `upstreamOf` names.
   */
  started(upstreamOf?: UpstreamOf): Promise<number>;
  /** The relay is stopping: withdraws every open ask (before the upstreams close). */
  stopping(): Promise<void>;
  close(): void;
}

/** Creates the elicitation handler over the relay's asks. */
export function createElicitation(deps: ElicitationDeps): Elicitation {
  const waits = new AskWaits(deps.relay.cases.events, deps.relay.store);
  const completions = new UrlCompletions();
  const lifetime = { relay: deps.relay, asks: deps.asks, waits, cards: deps.cards };
  const open = new OpenElicitations(lifetime);
  const resumes = new TaskResumes(lifetime, deps.cases);
  const self = deps.instanceId ?? '';
  const joins = new InputJoins({ ...lifetime, self, now: deps.now ?? Date.now, open });
  const chat = { ...deps, waits, open, resumes, joins };
  const answer: Answer = (u, params, signal, task, join) =>
    answerInChat(chat, u, params, signal, completions, { task, join });
  const recorded = { cases: deps.cases, log: deps.relay.log };
  return {
    waits,
    open,
    started: (upstreamOf) =>
      withdrawOrphans(lifetime, self, {
        resume: upstreamOf && ((asks) => resumes.resume(asks, upstreamOf)),
        keep: (asks) => {
          deps.relay.log.info(
            { kept: asks.length, grace_ms: JOIN_GRACE_MS },
            'mcp gateway: keeping elicitations a previous relay process left open, for a retried call to join',
          );
          joins.keep(asks, ELICIT_NOT_RETRIED);
        },
      }),
    stopping: () => open.stop(),
    close: () => {
      joins.close();
      waits.close();
    },
    prepare(client, upstream) {
      client.registerCapabilities({ elicitation: { form: {}, url: {} } });
      upstream.answerInput = tasksPathInput(answer, upstream);
      // While the relay stops, an upstream task lives on (its asks stay open for the next process).
      upstream.keepTasks = () => open.stopping;
      client.setRequestHandler('elicitation/create', (req, ctx) => {
        const params = req.params as Record<string, unknown>;
        // The SDK's input_required driver hands a 2026-07-28 round's request over under its key.
        const modern = client.getNegotiatedProtocolVersion() === '2026-07-28';
        const join = modern ? joinOf(upstream, String(ctx.mcpReq.id), params) : undefined;
        return answer(upstream, params, ctx.mcpReq.signal, undefined, join) as never;
      });
      client.setNotificationHandler('notifications/elicitation/complete', (n) =>
        recordCompletion(recorded, completions, upstream.name, n.params.elicitationId),
      );
    },
  };
}

type Answer = (
  u: Upstream,
  params: Record<string, unknown>,
  signal: AbortSignal,
  task?: TaskInput,
  join?: string,
) => Promise<ElicitAnswer>;

/**
 * The input requests of the Tasks path (upstream-tasks.ts), elicitations asked the same way: a
 * task's are keyed to the task (resumed after a restart); a task-less round's join an identical
 * call's, as on the SDK client's path.
 */
function tasksPathInput(answer: Answer, u: Upstream): AnswerInput {
  return async (req, signal, { key, taskId }) => {
    if (req.method !== 'elicitation/create') return undefined;
    const params = req.params ?? {};
    if (taskId !== undefined) return answer(u, params, signal, { taskId, key });
    return answer(u, params, signal, undefined, joinOf(u, key, params));
  };
}

/** Asks the person and turns what they did into the elicitation result. */
async function answerInChat(
  deps: ChatDeps,
  u: Upstream,
  params: Record<string, unknown>,
  signal: AbortSignal,
  completions: UrlCompletions,
  input: { task?: TaskInput | undefined; join?: string | undefined } = {},
): Promise<ElicitAnswer> {
  const { task, join } = input;
  const log = deps.relay.log;
  const at = { upstream: u.name };
  if (!u.config.target) {
    log.warn(
      at,
      'mcp gateway: elicitation cancelled: upstream has no target (mcp_upstreams.<name>.target)',
    );
    return CANCEL;
  }
  // While the relay stops a task's question is left for the next process, never answered cancel.
  if (deps.open.stopping && task) throw new RelayStopping();
  if (deps.open.stopping) return CANCEL;
  if (params.mode === 'url') return answerUrl(chatOf(deps, u, signal), params, completions);
  const made = elicitAsk(u.name, params as unknown as FormRequest);
  if (!made.ok) {
    log.warn(
      { ...at, problem: made.problem },
      'mcp gateway: elicitation cannot be asked: cancelled',
    );
    return CANCEL;
  }
  const c = await askedOrJoined(deps, u, made.content, signal, input);
  // While the relay stops, the question is left for the next process (a resumed task, a retry).
  if (!c && (task || join) && deps.open.stopping) throw new RelayStopping();
  if (c?.status !== 'completed') return CANCEL;
  const id = c.id;
  const data = (c.doc.result?.data ?? {}) as Record<string, unknown>;
  if (data.confirmed === false) return { action: 'decline' };
  const typed = contentOf(made.mapping, data);
  if (!typed.ok) {
    log.warn(
      { ...at, id, problem: typed.problem },
      'mcp gateway: elicitation answer does not fit the schema: cancelled',
    );
    return CANCEL;
  }
  return { action: 'accept', content: typed.content };
}

/**
 * The ask of one form elicitation: one an earlier process made for this task's key is adopted
 * (task-resume.ts); one an identical call's round made is joined (input-join.ts); else a new one.
 */
async function askedOrJoined(
  deps: ChatDeps,
  u: Upstream,
  content: AskContentInput,
  signal: AbortSignal,
  { task, join }: { task?: TaskInput | undefined; join?: string | undefined },
): Promise<StoredCase | undefined> {
  const adopted =
    task && (deps.resumes.take(u.name, task) ?? (await deps.resumes.asked(u.name, task)));
  if (adopted) {
    deps.open.hold(adopted);
    return settled(deps, u, adopted, signal);
  }
  const joined = join && (await deps.joins.find(join));
  const labels = {
    [ELICITATION_LABEL]: 'form',
    ...taskLabels(task),
    ...(join && { [JOIN_LABEL]: join }),
  };
  const timeout = u.config.timeoutMs;
  const made = join
    ? { onCreated: (id: string) => deps.joins.made(join, id, timeout) }
    : task && { onCreated: (id: string) => deps.resumes.noteAsk(u.name, task, id, timeout) };
  if (joined) deps.open.hold(joined);
  const c = joined
    ? await settled(deps, u, joined, signal)
    : await chatOf(deps, u, signal).ask(content, labels, made);
  if (c && join) await deps.joins.taken(join, c.id);
  return c;
}

/**
 * The fingerprint of input request `key` of a task-less 2026-07-28 round of the call in flight,
 * or undefined when it cannot be joined (URL mode; outside a call).
 */
function joinOf(u: Upstream, key: string, params: Record<string, unknown>): string | undefined {
  if (params.mode === 'url') return undefined;
  const call = u.callers.call();
  return call && inputFingerprint(u.name, call, key, { method: 'elicitation/create', params });
}

/** The labels naming a task's input request (none when too long to be a label value). */
function taskLabels(task: TaskInput | undefined): Record<string, string> {
  if (!task || task.taskId.length > 256 || task.key.length > 256) return {};
  return { [TASK_LABEL]: task.taskId, [TASK_KEY_LABEL]: task.key };
}

/** What one elicitation's chat uses: the relay, the waits, the open asks. */
type ChatDeps = ElicitationDeps & {
  waits: AskWaits;
  open: OpenElicitations;
  resumes: TaskResumes;
  joins: InputJoins;
};

/**
 * Waits for the end of ask `known`: the case once it is over; undefined when `signal` aborted
 * first (the ask withdrawn, but an upstream task's ask stays open while the relay stops).
 */
async function settled(deps: ChatDeps, u: Upstream, known: StoredCase, signal: AbortSignal) {
  const id = known.id;
  // Read afresh: `known` may be a copy from before a person answered (adopted at start-up, joined).
  const c = await deps.waits.until(id, undefined, signal, () => {});
  if (c && waitIsOver(c)) {
    deps.open.release(id);
    return c;
  }
  if (c && deps.open.stopping && outlivesStop(c)) deps.open.release(id);
  else if (c) await stoppedWaiting(deps, u, c);
  else deps.open.leave(id);
  return undefined;
}

/**
 * A caller stopped waiting on open ask `c` (it is logged): the ask stays while another caller
 * waits on it; a 2025 client's call that only disconnected leaves its joinable ask for a retry
 * (kept for JOIN_GRACE_MS, input-join.ts); else the ask is withdrawn.
 */
async function stoppedWaiting(deps: ChatDeps, u: Upstream, c: StoredCase): Promise<void> {
  const still = deps.open.leave(c.id);
  if (still < 0) return; // withdrawn already (the relay stopping)
  // Still within the downstream call that asked (callers.ts): did its client cancel it?
  const call = u.callers.call();
  const disconnected = !!call?.cancelled && !call.cancelled.aborted;
  const at = { upstream: c.doc.labels?.mcp_upstream, id: c.id, still_waiting: still };
  const log = deps.relay.log;
  if (still > 0) {
    log.info(at, 'mcp gateway: a caller stopped waiting for an elicitation; others still wait');
  } else if (disconnected && isJoinAsk(c)) {
    log.info(
      { ...at, grace_ms: JOIN_GRACE_MS },
      'mcp gateway: a caller stopped waiting for an elicitation: its 2025 client disconnected without cancelling, so the ask is kept for a retry',
    );
    deps.joins.keep([c], ELICIT_NOT_RETRIED_AFTER_DISCONNECT);
  } else {
    log.info(at, 'mcp gateway: a caller stopped waiting for an elicitation; it is withdrawn');
    await withdrawConfirmed(deps, c, ELICIT_WITHDRAWN);
  }
}

/**
 * Asks in upstream `u`'s target and waits for the end: the chat of one elicitation. When `signal`
 * aborts first (the upstream's request is over), the ask is withdrawn.
 */
function chatOf(deps: ChatDeps, u: Upstream, signal: AbortSignal): ElicitChat {
  return {
    upstream: u.name,
    log: deps.relay.log,
    async ask(content, labels, more) {
      const holder = deps.instanceId ? { [HOLDER_LABEL]: deps.instanceId } : {};
      const body = {
        target: u.config.target,
        content,
        expires_in: Math.ceil(u.config.timeoutMs / 1000),
        labels: { mcp_upstream: u.name, ...holder, ...labels },
      };
      const origin = u.origin ?? deps.origin();
      // Whose call it came for and from which upstream: lines on every card (contextLines).
      const from = { upstream: u.name, called_by: u.callers.now() };
      const context = { context: { ...from, ...more?.context } };
      const { known } = await deps.open.whileMaking(async () => {
        const created = await createAsk(deps.relay, deps.asks, body, origin, context);
        const id = created.relay.id;
        deps.relay.log.info({ upstream: u.name, id }, 'mcp gateway: elicitation asked in chat');
        await more?.onCreated?.(id);
        const known = await deps.relay.store.getCase(id);
        if (known) deps.open.hold(known);
        return { known };
      });
      return known && (await settled(deps, u, known, signal));
    },
  };
}
