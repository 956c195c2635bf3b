/** A tap, from the button to the service: who, allowed, still open, confirmed, claimed once, submitted. */
import type { Tap, TapOutcome, TapReply } from '../adapter.ts';
import { checkAnswer, irreversiblePicks } from '../asks/answer.ts';
import { askContentOf } from '../asks/content.ts';
import { protocolOf } from '../asks/protocol.ts';
import { castVote } from '../policy/vote.ts';
import {
  buildSubmitRequest,
  inlineActions,
  isIrreversible,
  type SubmitRequest,
} from '../protocol/actions.ts';
import type { StatusUpdate } from '../protocol/status.ts';
import { isTerminal } from '../protocol/types.ts';
import { formatTime } from '../render/render-case.ts';
import { t } from '../render/templates.ts';
import type { SubmitOutcome } from '../submit/outcome.ts';
import { submit } from '../submit/submit.ts';
import {
  checkSoon,
  checkUnknownSubmit,
  markSubmitUnknown,
  unknownView,
} from '../submit/unknown.ts';
import { pollCase } from '../watch/poll.ts';
import { type CarriedWrites, type Engine, randomId } from './engine.ts';
import type { HistoryEntry, StoredCase } from './types.ts';

const PAYLOAD = /^hitl:([A-Za-z0-9_-]{1,32}):([a-z_]{1,32})$/;
/** How long a first tap on an irreversible action waits for its confirming second tap. */
const CONFIRM_MS = 60_000;
/** The least time between the warning and a tap that confirms it (a double-click is faster). */
export const CONFIRM_MIN_MS = 1_000;

/** Parses a button payload `hitl:<key>:<action>`. */
export function parsePayload(payload: string): { key: string; action: string } | null {
  const m = PAYLOAD.exec(payload);
  return m ? { key: m[1]!, action: m[2]! } : null;
}

/** Handles one tap; never throws (every failure is a reply the person can read). */
export async function handleTap(engine: Engine, tap: Tap): Promise<TapReply> {
  const c = await engine.store.getCaseByKey(tap.key);
  const reply = async (
    outcome: TapOutcome,
    view: Record<string, unknown> = {},
    current?: StoredCase,
  ) => {
    const now = current ?? (c ? await engine.store.getCase(c.id) : undefined);
    return {
      outcome,
      text: t(engine.strings, `reply.${outcome}`, view).slice(0, 200),
      card: now ? await engine.cardOf(now) : null,
    };
  };
  if (!c) return reply('unknown_case');
  const messages = await engine.store.listMessages(c.id);
  const target =
    (tap.ref &&
      messages.find((m) => m.platform === tap.platform && m.ref_id === tap.ref?.id)?.target) ??
    messages.find((m) => m.platform === tap.platform)?.target;
  if (!target) return reply('unknown_case');
  // The audit trail of every tap: who (id and shown name), where (platform and chat), what action.
  const who = {
    platform: tap.platform,
    target,
    user: tap.user.id,
    ...(tap.user.name ? { name: tap.user.name.slice(0, 128) } : {}),
    action: tap.action,
  };
  if (!engine.mayAct(c, target, tap.user.id)) {
    await engine.history(c.id, 'tap_refused', { ...who, reason: 'not on the allowlist' });
    return reply('forbidden');
  }
  if (isTerminal(c.status)) {
    await engine.history(c.id, 'tap_refused', { ...who, reason: `the case is ${c.status}` });
    return reply('closed', { status: c.status });
  }
  if (c.doc.next_id) {
    // A revised case: its card shows no buttons any more, and a tap from an old render is refused.
    await engine.history(c.id, 'tap_refused', { ...who, reason: 'the case was revised' });
    return reply('closed', { status: 'revised' });
  }
  const secrets = engine.secretsOf(c);
  // An ask (context.ask) is answered with data from native widgets, so all its actions are inline.
  const ask = askContentOf(c.doc.hitl.context);
  const allowed = c.doc.inline_unavailable
    ? []
    : (ask
        ? (c.doc.hitl.inline_actions ?? protocolOf(ask).actions)
        : inlineActions(c.doc.hitl, secrets.submit_token !== null).actions
      ).filter((a) => !c.doc.inline_refused?.includes(a));
  if (!allowed.includes(tap.action) || !secrets.submit_token || !c.doc.hitl.submit_url) {
    await engine.history(c.id, 'tap_refused', { ...who, reason: 'action not inline-allowed' });
    return reply('not_allowed');
  }
  let data: Record<string, unknown> = {};
  let irreversible = isIrreversible(c.doc.hitl, tap.action);
  if (ask) {
    // Checked before anything is claimed or sent: a bad answer records nothing.
    const checked = checkAnswer(ask, tap.action, tap.data ?? {});
    if (!checked.ok) {
      await engine.history(c.id, 'tap_refused', {
        ...who,
        reason: 'invalid answer',
        // Bounded: the messages may quote what the person sent.
        issues: checked.issues
          .slice(0, 10)
          .map((i) => ({ path: i.path.slice(0, 100), message: i.message.slice(0, 200) })),
      });
      const first = checked.issues[0];
      const problem = first ? `${first.path}: ${first.message}` : 'invalid';
      return {
        ...(await reply('invalid_answer', { problem })),
        issues: checked.issues.slice(0, 50),
      };
    }
    data = checked.data as Record<string, unknown>;
    irreversible = irreversiblePicks(ask, checked.data).length > 0;
  }
  const label = t(engine.strings, `action.${tap.action}`);
  if (irreversible && !tap.confirmed) {
    // The first tap shows the warning; the confirming tap counts only once the person has had
    // time to read it. A double-click (or two racing requests) is one tap, not a confirmation.
    const key = `confirm:${c.id}:${tap.platform}:${tap.user.id}:${tap.action}`;
    const at = engine.now();
    if (await engine.store.kv.setIfAbsent(key, String(at), CONFIRM_MS)) {
      await engine.history(c.id, 'tap_confirm_asked', who);
      return reply('confirm_required', { label });
    }
    const asked = Number(await engine.store.kv.get(key));
    if (!Number.isFinite(asked) || at - asked < CONFIRM_MIN_MS) {
      await engine.history(c.id, 'tap_refused', { ...who, reason: 'confirmed too soon' });
      return reply('confirm_required', { label });
    }
    await engine.store.kv.delete(key);
  }

  // The service asked to wait (429 Retry-After): no submit before then.
  const waitUntil = c.doc.retry_after_until;
  if (waitUntil !== undefined && waitUntil > engine.now()) {
    const view = {
      seconds: Math.ceil((waitUntil - engine.now()) / 1000),
      at: formatTime(waitUntil),
    };
    await engine.history(c.id, 'tap_refused', { ...who, reason: 'the service asked to wait' });
    return reply('rate_limited', view);
  }

  // An earlier submit got no answer: nothing is sent until a poll shows it was not recorded.
  if (c.doc.submit_unknown) {
    const checked = await checkUnknownSubmit(engine, c);
    if (checked.check !== 'not_recorded') {
      const now = checked.case;
      const closed = checked.check !== 'unknown' && now;
      await engine.history(c.id, 'tap_refused', {
        ...who,
        reason: closed ? `the case is ${now.status}` : 'an earlier submit has no known outcome yet',
      });
      return closed
        ? reply('closed', { status: now.status }, now)
        : reply('submit_unknown', unknownView(c.doc.submit_unknown), now);
    }
  }

  // An approval policy: the vote is stored first; only the tap that meets the policy is submitted.
  const vote = await castVote(engine, c, tap, who);
  if (!vote.decides) return reply(vote.outcome, vote.view, vote.case);

  const holder = `${engine.instanceId}:${randomId(6)}`;
  // The claim and the tap's history row are one write.
  if (!(await claim(engine, c, holder, { at: engine.now(), kind: 'tap', detail: who }))) {
    const now = await engine.store.getCase(c.id);
    if (now && isTerminal(now.status)) {
      await engine.history(c.id, 'tap_refused', { ...who, reason: `the case is ${now.status}` });
      return reply('closed', { status: now.status }, now);
    }
    await engine.history(c.id, 'tap_refused', { ...who, reason: 'another tap is being submitted' });
    return reply('busy');
  }
  const body = { ...buildSubmitRequest(tap.action, tap.platform, tap.user), data };
  const outcome = await submit(c.doc.hitl.submit_url, secrets.submit_token, body, {
    dispatcher: engine.submitDispatcher,
    now: engine.now,
    timeoutMs: engine.config.submitTimeoutMs,
  });
  // The submit's row and the claim release go with the case change the outcome makes (one
  // write); when it makes none, they are written on their own at the end.
  const carry: CarriedWrites = {
    history: [
      {
        at: engine.now(),
        kind: 'submit',
        detail: {
          ...who,
          outcome: outcome.kind,
          ...('status' in outcome ? { status: outcome.status } : {}),
          ...('error' in outcome ? { error: outcome.error } : {}),
          ...(outcome.kind === 'rate_limited' && outcome.retryAfterMs !== undefined
            ? { retry_after_s: Math.ceil(outcome.retryAfterMs / 1000) }
            : {}),
        },
      },
    ],
    releaseClaim: holder,
  };
  if (outcome.kind !== 'accepted')
    engine.log.warn(
      {
        case: c.id,
        action: tap.action,
        outcome: outcome.kind,
        ...('status' in outcome ? { status: outcome.status } : {}),
        ...('error' in outcome ? { error: outcome.error } : {}),
        ...(outcome.kind === 'failed' || outcome.kind === 'unknown'
          ? { reason: outcome.reason }
          : {}),
      },
      outcome.kind === 'unknown'
        ? 'submit outcome unknown: no answer after it was sent; confirming by a poll'
        : 'submit not accepted',
    );
  try {
    return await settleSubmit(engine, c, tap, body, outcome, reply, carry);
  } finally {
    if (!carry.done) {
      for (const h of carry.history ?? []) await engine.history(c.id, h.kind, h.detail);
      await engine.store.releaseClaim(c.id, holder);
    }
  }
}

export type Reply = (
  outcome: TapOutcome,
  view?: Record<string, unknown>,
  current?: StoredCase,
) => Promise<TapReply>;

/**
 * What the service's answer to a submit means for the case, the card and the person (spec 7.5,
 * 7.6): the service's own result on 200 (confirmed by a poll), and for every refusal the truth
 * about what happened and what the person can do.
 */
export async function settleSubmit(
  engine: Engine,
  c: StoredCase,
  tap: Tap,
  body: SubmitRequest,
  outcome: SubmitOutcome,
  reply: Reply,
  carry: CarriedWrites,
): Promise<TapReply> {
  const s = engine.strings;
  // The case in hand (read before the claim) is where each change starts; the carried writes go
  // with the first change that lands.
  const w = { known: c, carry };
  const patchDoc = (patch: Parameters<Engine['patchDoc']>[1]) => engine.patchDoc(c.id, patch, w);
  const done = t(s, `done.${tap.action}`);
  const label = t(s, `action.${tap.action}`);
  switch (outcome.kind) {
    case 'accepted': {
      // The service took the answer. Its result is the result: read the case (poll_url is the
      // source of truth) and fall back to what the 200 body said when the poll cannot tell.
      // The service took this person's answer (a second answer gets 409): they submitted it. It is
      // recorded in the same write as the completion (one version, one card edit), or on its own
      // when a concurrent poll applied the completion first.
      const ours = (x: StoredCase) =>
        !x.doc.submitted_by && !(isTerminal(x.status) && x.doc.result?.action !== tap.action);
      const record = (x: StoredCase) => {
        if (ours(x)) x.doc.submitted_by = body.submitted_by;
      };
      const polled = await pollCase(engine, c, null);
      let updated: StoredCase | undefined;
      if (polled.kind === 'status' && isTerminal(polled.update.status))
        updated = await engine.applyStatus(c.id, polled.update, 'submit_confirmed', record, w);
      else {
        const a = outcome.answer;
        const u: StatusUpdate =
          a.update?.status === 'completed'
            ? a.update
            : {
                status: 'completed',
                case_id: c.case_id,
                // The service confirmed this action and gave no data: none is invented.
                result: { action: tap.action },
                ...(outcome.completed_at ? { at: outcome.completed_at } : {}),
              };
        updated = await engine.applyStatus(c.id, u, 'submit', record, w);
      }
      if (!updated)
        updated = await engine.mutate(
          c.id,
          (x) => {
            if (!ours(x)) return false;
            x.doc.submitted_by = body.submitted_by;
            return true;
          },
          { carry },
        );
      const current = updated ?? (await engine.store.getCase(c.id));
      if (current?.status === 'completed' && current.doc.result?.action !== tap.action)
        return reply('closed', { status: current.status }, current);
      return reply('submitted', { done }, current);
    }
    case 'unconfirmed': {
      // 2xx, but not what an accepted submit answers (an HTML page, a cut body): ask the poll.
      const read = await pollCase(engine, c, null);
      const applied =
        read.kind === 'status'
          ? await engine.applyStatus(c.id, read.update, 'poll', undefined, w)
          : undefined;
      const current = applied ?? (await engine.store.getCase(c.id));
      if (current && isTerminal(current.status))
        return current.status === 'completed' && current.doc.result?.action === tap.action
          ? reply('submitted', { done }, current)
          : reply('closed', { status: current.status }, current);
      const updated = await engine.patchDoc(
        c.id,
        {
          notice: t(
            s,
            read.kind === 'error' ? 'notice.unconfirmed_unknown' : 'notice.unconfirmed_open',
          ),
        },
        { known: current, carry },
      );
      return reply('unconfirmed', {}, updated);
    }
    case 'refused': {
      // The service refused the request itself: the same tap would be refused again.
      const view = { status: outcome.status, message: outcome.message ?? '' };
      const updated = await patchDoc({
        inline_unavailable: true,
        notice: t(s, 'notice.refused', view),
      });
      return reply('refused', view, updated);
    }
    case 'unauthorized': {
      const updated = await patchDoc({
        inline_unavailable: true,
        notice: t(s, 'notice.inline_unavailable'),
      });
      return reply('inline_unavailable', {}, updated);
    }
    case 'forbidden': {
      // Verification errors mean no inline path will work for this case (spec 7.6: fall back to
      // review_url, do not retry inline); action_not_inline is about this action only.
      if (outcome.error === 'action_not_inline') {
        const refused = [...new Set([...(c.doc.inline_refused ?? []), tap.action])];
        const updated = await patchDoc({
          inline_refused: refused,
          notice: t(s, 'notice.action_not_inline', { label }),
        });
        return reply('use_review_url', {}, updated);
      }
      const updated = await patchDoc({
        inline_unavailable: true,
        notice: t(
          s,
          outcome.error.startsWith('verification')
            ? 'notice.verification'
            : 'notice.use_review_url',
        ),
      });
      return reply('use_review_url', {}, updated);
    }
    case 'closed': {
      const settled = await settleByPoll(engine, c.id, w);
      if (settled && isTerminal(settled.status))
        return reply('closed', { status: settled.status }, settled);
      const current = await engine.store.getCase(c.id);
      if (current && isTerminal(current.status))
        return reply('closed', { status: current.status }, current);
      if (outcome.status === 410) {
        // 410 is the service saying the case expired (spec 7.5).
        const expired = await engine.applyStatus(
          c.id,
          { status: 'expired', case_id: c.case_id },
          'submit_410',
          undefined,
          { known: current, carry },
        );
        return reply('closed', { status: 'expired' }, expired);
      }
      // 409: answered already, somewhere else; its final state cannot be read right now.
      const updated = await patchDoc({
        inline_unavailable: true,
        notice: t(s, 'notice.decided_elsewhere'),
      });
      return reply('closed', { status: t(s, 'closed_elsewhere') }, updated);
    }
    case 'rate_limited': {
      if (outcome.retryAfterMs === undefined) {
        const updated = await patchDoc({ notice: t(s, 'notice.rate_limited_now') });
        return reply('rate_limited_now', {}, updated);
      }
      const until = engine.now() + outcome.retryAfterMs;
      const view = { seconds: Math.ceil(outcome.retryAfterMs / 1000), at: formatTime(until) };
      const updated = await patchDoc({
        retry_after_until: until,
        notice: t(s, 'notice.rate_limited', view),
      });
      return reply('rate_limited', view, updated);
    }
    case 'unknown': {
      // Sent, and no answer: the service may have recorded it. Say so at once (the card hides its
      // buttons), then ask poll_url; never offer a blind second submit.
      const mark = {
        action: tap.action,
        at: engine.now(),
        submitted_by: body.submitted_by,
        ...(outcome.timeoutS ? { timeout_s: outcome.timeoutS } : {}),
      };
      const marked = (await markSubmitUnknown(engine, c.id, mark)) ?? c;
      const checked = await checkUnknownSubmit(engine, marked);
      const current = checked.case ?? marked;
      const view = unknownView(mark);
      if (checked.check === 'recorded') return reply('submitted', { done }, current);
      if (checked.check === 'closed') return reply('closed', { status: current.status }, current);
      if (checked.check === 'not_recorded') return reply('submit_not_recorded', view, current);
      await checkSoon(engine, current);
      return reply('submit_unknown', view, current);
    }
    case 'queue_full':
      // Nothing was sent: say so plainly, the card stays as it is.
      return reply('service_busy');
    case 'redirected': {
      const view = { status: outcome.status };
      const updated = await patchDoc({ notice: t(s, 'notice.redirected', view) });
      return reply('redirected', view, updated);
    }
    case 'service_failed': {
      const view = { status: outcome.status };
      const updated = await patchDoc({ notice: t(s, 'notice.service_failed', view) });
      return reply('service_failed', view, updated);
    }
    default: {
      const updated = await patchDoc({ notice: t(s, 'notice.failed') });
      return reply('failed', {}, updated);
    }
  }
}

/**
 * Claims the case (with the tap's history row in the same write); an expired claim (a submit whose
 * outcome is unknown) is settled by a poll first.
 */
export async function claim(
  engine: Engine,
  c: StoredCase,
  holder: string,
  row: HistoryEntry,
): Promise<boolean> {
  const until = engine.now() + engine.config.claimMs;
  if (await engine.store.claimCase(c.id, holder, until, row)) {
    engine.recorded(c.id, row);
    return true;
  }
  const current = await engine.store.getCase(c.id);
  if (!current?.claim || current.claim.until >= engine.now()) return false;
  // Take over only when a poll read the case still open: a failed poll leaves the lost submit's
  // outcome unknown, and submitting again then could make a second POST.
  const read = await pollCase(engine, current, null);
  if (read.kind !== 'status') return false;
  await engine.applyStatus(c.id, read.update, 'poll');
  const latest = await engine.store.getCase(c.id);
  if (!latest || isTerminal(latest.status)) return false;
  const took = await engine.store.takeOverClaim(c.id, current.claim.holder, holder, until);
  if (took) {
    engine.events.emit('takeover', 'claim', c.id); // counted in /metrics
    await engine.history(c.id, row.kind, row.detail);
  }
  return took;
}

/**
 * Reads the case's real state from poll_url and applies it; returns the case when it changed.
 * `o.known`: the case as the caller holds it (not read again).
 */
export async function settleByPoll(
  engine: Engine,
  id: string,
  o: { known?: StoredCase; carry?: CarriedWrites } = {},
): Promise<StoredCase | undefined> {
  const c = o.known ?? (await engine.store.getCase(id));
  if (!c) return undefined;
  const r = await pollCase(engine, c, null);
  if (r.kind !== 'status') return undefined;
  return engine.applyStatus(id, r.update, 'poll', undefined, o);
}
