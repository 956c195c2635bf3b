/**
 * URL-mode elicitation (MCP 2025-11-25) asked in chat: the upstream wants a person to open a URL
 * themselves (a sign-in, a payment, a consent page). The gateway never opens or fetches it: the
 * ask is a confirm whose statement shows the full URL and, on a line of its own, its host (the
 * part a person must check; an internationalised host is shown in its ASCII `xn--` form, so a
 * look-alike cannot pass for it), and whose card has a link button to the URL labelled with that
 * host ("Opens example.com", cases/open-link.ts). Confirm is consent only: the upstream receives `accept` without
 * content, and learns the outcome of the interaction itself (out of band). The server's
 * `notifications/elicitation/complete` is recorded on the ask's case: a history row and a note
 * every card shows ("completed, the server says"). Pure apart from `UrlCompletions`.
 */
import { ASK_LIMITS, type AskContentInput } from '../asks/content.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { Logger } from '../log.ts';
import type { StoredCase } from '../store/types.ts';

/** The params of a URL-mode `elicitation/create`. */
export interface UrlRequest {
  mode: 'url';
  message: string;
  url: string;
  elicitationId?: string;
}

/** The ask of a URL-mode elicitation, or why it cannot be asked. */
export type UrlAsk =
  | { ok: true; content: AskContentInput; host: string; url: string }
  | { ok: false; problem: string };

/** The schemes a person may be sent to (never javascript:, data:, file:, …). */
const SCHEMES = new Set(['https:', 'http:']);

/** The words around the URL: said once, so the length check knows them. */
const OPEN_YOURSELF = 'Open this link yourself, in your own browser (the relay never opens it):';

/** The confirm ask of a URL-mode elicitation for upstream `upstream`. */
export function urlAsk(upstream: string, r: UrlRequest): UrlAsk {
  let url: URL;
  try {
    url = new URL(String(r.url));
  } catch {
    return { ok: false, problem: 'its url is not a URL' };
  }
  if (!SCHEMES.has(url.protocol))
    return { ok: false, problem: `its url's scheme ${url.protocol} is not https or http` };
  if (url.username || url.password)
    return { ok: false, problem: 'its url carries credentials (user:password@)' };
  const host = url.host;
  const statement = `${OPEN_YOURSELF}\n${url.href}\n\nSite: ${host}${url.protocol === 'http:' ? ' (not encrypted: http)' : ''}`;
  if (statement.length > ASK_LIMITS.statement)
    return { ok: false, problem: `its url is longer than a card shows (${url.href.length})` };
  const prompt = `${upstream} asks you to open a link: ${String(r.message)}`;
  return {
    ok: true,
    host,
    url: url.href,
    content: {
      type: 'context',
      sub_type: 'confirm',
      prompt: prompt.slice(0, ASK_LIMITS.prompt),
      statement,
    },
  };
}

/** The note a case's cards show once the upstream said the interaction completed. */
export const completedNote = (upstream: string) =>
  `${upstream} says the interaction at the link is complete.`;

/** At most this many URL elicitations are remembered for their completion (the oldest go first). */
const REMEMBERED = 1000;

/**
 * The open URL elicitations per upstream, by elicitationId, to the relay case of their ask: a
 * completion names only the elicitationId. In memory (a completion after a restart is logged as
 * unknown), bounded.
 */
export class UrlCompletions {
  private readonly byId = new Map<string, string>();

  private static key(upstream: string, elicitationId: string): string {
    return `${upstream}\u0000${elicitationId}`;
  }

  remember(upstream: string, elicitationId: string, caseId: string): void {
    this.byId.set(UrlCompletions.key(upstream, elicitationId), caseId);
    if (this.byId.size > REMEMBERED) {
      const oldest = this.byId.keys().next().value;
      if (oldest !== undefined) this.byId.delete(oldest);
    }
  }

  /** The case of an elicitation, forgotten as it is taken (a completion comes once). */
  take(upstream: string, elicitationId: string): string | undefined {
    const key = UrlCompletions.key(upstream, elicitationId);
    const id = this.byId.get(key);
    this.byId.delete(key);
    return id;
  }
}

/** What answering one elicitation in chat offers (elicitation.ts makes it). */
export interface ElicitChat {
  upstream: string;
  log: Logger;
  /**
   * Asks `content` and waits: the case once it ended, or undefined (it did not end here).
   * `context` is more of the case's context (a URL elicitation's `open_link`).
   */
  ask(
    content: AskContentInput,
    labels: Record<string, string>,
    more?: {
      onCreated?: (caseId: string) => void | Promise<void>;
      context?: Record<string, unknown>;
    },
  ): Promise<StoredCase | undefined>;
}

/** The result of a URL-mode elicitation: consent (no content), or not. */
export type UrlAnswer = { action: 'accept' } | { action: 'decline' | 'cancel' };

/** Asks a URL-mode elicitation in chat: Confirm → accept (consent), Decline → decline, else cancel. */
export async function answerUrl(
  chat: ElicitChat,
  params: Record<string, unknown>,
  completions: UrlCompletions,
): Promise<UrlAnswer> {
  const at = { upstream: chat.upstream };
  const made = urlAsk(chat.upstream, params as unknown as UrlRequest);
  if (!made.ok) {
    chat.log.warn(
      { ...at, problem: made.problem },
      'mcp gateway: URL elicitation cannot be asked: cancelled',
    );
    return { action: 'cancel' };
  }
  const elicitationId = typeof params.elicitationId === 'string' ? params.elicitationId : undefined;
  const labels = {
    mcp_elicitation: 'url',
    mcp_url_host: made.host.slice(0, 256),
    ...(elicitationId && { mcp_elicitation_id: elicitationId.slice(0, 256) }),
  };
  const remember = (id: string) => {
    if (elicitationId) completions.remember(chat.upstream, elicitationId, id);
  };
  // The card's link button (cases/open-link.ts): the person opens it; the relay never does.
  const context = { open_link: { url: made.url } };
  const c = await chat.ask(made.content, labels, { onCreated: remember, context });
  if (c?.status !== 'completed') return { action: 'cancel' };
  const data = (c.doc.result?.data ?? {}) as Record<string, unknown>;
  return data.confirmed === true ? { action: 'accept' } : { action: 'decline' };
}

/** What recording a completion touches of the relay. */
export type CompletionDeps = {
  cases: Pick<CaseRepository, 'patchDoc' | 'history'>;
  log: Logger;
};

/**
 * Records the upstream's `notifications/elicitation/complete`: the case's cards say so and its
 * history keeps it; a completion the gateway does not know (another process, before a restart)
 * is a log line.
 */
export async function recordCompletion(
  deps: CompletionDeps,
  completions: UrlCompletions,
  upstream: string,
  elicitationId: unknown,
): Promise<void> {
  const id =
    typeof elicitationId === 'string' ? completions.take(upstream, elicitationId) : undefined;
  if (!id) {
    deps.log.info(
      { upstream },
      'mcp gateway: completion of an elicitation this relay does not hold',
    );
    return;
  }
  await deps.cases.history(id, 'mcp_elicitation_complete', { upstream });
  await deps.cases.patchDoc(id, { note: completedNote(upstream) });
  deps.log.info({ upstream, id }, 'mcp gateway: URL elicitation completed (the server says)');
}
