/**
 * An upstream task waiting on a person outlives a relay restart. Each ask of a task's input
 * request is labelled with the task's id and its inputRequests key (and the upstream); the relay's
 * stop leaves those asks open and the task running upstream. At start-up the next process takes
 * the asks an earlier process left open and, per task, reads it again with `tasks/get`: an ask
 * whose key the task still asks for stays open (its card unchanged) and is adopted by the follow,
 * so the person's answer goes upstream with `tasks/update`; an ask the task no longer asks for
 * (it moved on, ended, is gone, or the upstream cannot be reached) is withdrawn, the reason in its
 * history and on its cards.
 */

import type { CaseRepository } from '../cases/repository.ts';
import { waitIsOver } from '../mcp/waits.ts';
import type { StoredCase } from '../store/types.ts';
import {
  ELICITATION_LABEL,
  type LifetimeDeps,
  TASK_KEY_LABEL,
  TASK_LABEL,
  withdrawConfirmed,
} from './elicitation-lifetime.ts';
import type { Upstream } from './upstream.ts';
import type { TaskInput } from './upstream-tasks.ts';

/** The upstream called `name`, when it is configured. */
export type UpstreamOf = (name: string) => Upstream | undefined;

/** What the cards say when the task no longer asks what the ask asked. */
export const taskMovedOn = (status: unknown) =>
  `no longer needed: after the relay restarted, the MCP server's task no longer asks this (it is ${String(status)})`;
/** What the cards say when the task could not be read again. */
export const taskUnreadable = (why: string) =>
  `no longer needed: after the relay restarted, the MCP server's task could not be read again: ${why}`.slice(
    0,
    500,
  );

const slot = (upstream: string, taskId: string, key: string) => `${upstream}\n${taskId}\n${key}`;
/** The store's note of which ask a task's input request has (any process, any replica). */
const askKey = (upstream: string, at: TaskInput) =>
  `mcp-gw-task-ask:${slot(upstream, at.taskId, at.key)}`;
/** How long that note outlives the ask's own timeout (an answer may wait for its follow). */
const ASK_NOTE_MS = 24 * 60 * 60 * 1000;

/** The asks an earlier process left open for upstream tasks, until a follow adopts them. */
export class TaskResumes {
  private readonly adoptable = new Map<string, StoredCase>();

  constructor(
    private readonly d: LifetimeDeps,
    private readonly cases: Pick<CaseRepository, 'history'>,
  ) {}

  /** The open ask an earlier process made for this input request, taken once. */
  take(upstream: string, at: TaskInput): StoredCase | undefined {
    const k = slot(upstream, at.taskId, at.key);
    const c = this.adoptable.get(k);
    this.adoptable.delete(k);
    return c;
  }

  /** Notes that input request `at` of upstream `upstream`'s task is asked by ask `id`. */
  noteAsk(upstream: string, at: TaskInput, id: string, timeoutMs: number): Promise<void> {
    return this.d.relay.store.kv.set(askKey(upstream, at), id, timeoutMs + ASK_NOTE_MS);
  }

  /**
   * The ask an earlier process made for input request `at`, found through its note: still open
   * (its process may not yet count as gone, so start-up has not listed it) or answered (a person
   * tapped before any process followed the task again). Undefined when there is none, or it ended
   * without an answer (then the question is asked anew).
   */
  async asked(upstream: string, at: TaskInput): Promise<StoredCase | undefined> {
    const id = await this.d.relay.store.kv.get(askKey(upstream, at));
    const c = id === undefined ? undefined : await this.d.relay.store.getCase(id);
    const l = c?.doc.labels ?? {};
    if (!c || l.mcp_upstream !== upstream || l[TASK_LABEL] !== at.taskId) return undefined;
    if (l[TASK_KEY_LABEL] !== at.key || l[ELICITATION_LABEL] !== 'form') return undefined;
    return !waitIsOver(c) || c.status === 'completed' ? c : undefined;
  }

  /** Follows the tasks of `asks` again; the asks are adopted or withdrawn (see above). */
  async resume(asks: StoredCase[], upstreamOf: UpstreamOf): Promise<void> {
    const byTask = new Map<string, StoredCase[]>();
    for (const c of asks) {
      const l = c.doc.labels ?? {};
      const k = `${l.mcp_upstream}\n${l[TASK_LABEL]}`;
      byTask.set(k, [...(byTask.get(k) ?? []), c]);
    }
    await Promise.all([...byTask.values()].map((group) => this.resumeOne(group, upstreamOf)));
  }

  private async resumeOne(group: StoredCase[], upstreamOf: UpstreamOf): Promise<void> {
    const labels = group[0]?.doc.labels ?? {};
    const name = String(labels.mcp_upstream);
    const taskId = String(labels[TASK_LABEL]);
    const u = upstreamOf(name);
    const form = group.filter((c) => c.doc.labels?.[ELICITATION_LABEL] === 'form');
    const keyOf = (c: StoredCase) => String(c.doc.labels?.[TASK_KEY_LABEL]);
    for (const c of form) this.adoptable.set(slot(name, taskId, keyOf(c)), c);
    const drop = async (c: StoredCase, reason: string) => {
      this.adoptable.delete(slot(name, taskId, keyOf(c)));
      const row = { upstream: name, key: keyOf(c), reason };
      await this.cases.history(c.id, 'mcp_task_not_resumed', row).catch(() => undefined);
      return withdrawConfirmed(this.d, c, reason);
    };
    const other = group.filter((c) => !form.includes(c));
    await Promise.all(other.map((c) => drop(c, taskUnreadable('it was not a form'))));
    if (!u) {
      await Promise.all(form.map((c) => drop(c, taskUnreadable(`upstream ${name} is gone`))));
      return;
    }
    const log = this.d.relay.log;
    log.info({ upstream: name, asks: form.length }, 'mcp gateway: resuming an upstream task');
    let first = false;
    const onFirst = async (task: Record<string, unknown>) => {
      first = true;
      const open = task.status === 'input_required' ? ((task.inputRequests ?? {}) as object) : {};
      const gone = form.filter((c) => !Object.hasOwn(open, keyOf(c)));
      await Promise.all(gone.map((c) => drop(c, taskMovedOn(task.status))));
    };
    try {
      await u.resumeTask(taskId, onFirst);
    } catch (err) {
      if (first) return;
      const why = (err as Error).message;
      log.warn({ upstream: name, err: why }, 'mcp gateway: cannot resume an upstream task');
      await Promise.all(form.map((c) => drop(c, taskUnreadable(why))));
    }
  }
}
