/** A tap, from the button to the service: who, allowed, still open, confirmed, claimed once, submitted. */
import type { Tap, TapOutcome, TapReply } from '../adapter.ts';
import { buildSubmitRequest, inlineActions, isIrreversible } from '../protocol/actions.ts';
import { isTerminal } from '../protocol/types.ts';
import { t } from '../render/templates.ts';
import { submit } from '../submit/submit.ts';
import { pollOnce } from '../watch/poll.ts';
import { type Engine, randomId } from './engine.ts';
import type { StoredCase } from './types.ts';

const PAYLOAD = /^hitl:([A-Za-z0-9_-]{1,32}):([a-z_]{1,32})$/;
/** How long a submit may hold the claim before its outcome counts as unknown. */
const CLAIM_MS = 60_000;
/** How long a first tap on an irreversible action waits for its confirming second tap. */
const CONFIRM_MS = 60_000;

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
  const secrets = engine.secretsOf(c);
  const allowed = c.doc.inline_unavailable
    ? []
    : inlineActions(c.doc.hitl, secrets.submit_token !== null).actions;
  if (!allowed.includes(tap.action) || !secrets.submit_token || !c.doc.hitl.submit_url) {
    await engine.history(c.id, 'tap_refused', { ...who, reason: 'action not inline-allowed' });
    return reply('not_allowed');
  }
  const label = t(engine.strings, `action.${tap.action}`);
  if (isIrreversible(c.doc.hitl, tap.action) && !tap.confirmed) {
    const key = `confirm:${c.id}:${tap.platform}:${tap.user.id}:${tap.action}`;
    if (await engine.store.kv.setIfAbsent(key, '1', CONFIRM_MS)) {
      await engine.history(c.id, 'tap_confirm_asked', who);
      return reply('confirm_required', { label });
    }
    await engine.store.kv.set(key, '', 1);
  }

  const holder = `${engine.instanceId}:${randomId(6)}`;
  if (!(await claim(engine, c, holder))) {
    const now = await engine.store.getCase(c.id);
    if (now && isTerminal(now.status)) {
      await engine.history(c.id, 'tap_refused', { ...who, reason: `the case is ${now.status}` });
      return reply('closed', { status: now.status }, now);
    }
    await engine.history(c.id, 'tap_refused', { ...who, reason: 'another tap is being submitted' });
    return reply('busy');
  }
  await engine.history(c.id, 'tap', who);
  const body = buildSubmitRequest(tap.action, tap.platform, tap.user);
  const outcome = await submit(c.doc.hitl.submit_url, secrets.submit_token, body, {
    dispatcher: engine.dispatcher,
    now: engine.now,
  });
  await engine.history(c.id, 'submit', {
    ...who,
    outcome: outcome.kind,
    ...('status' in outcome ? { status: outcome.status } : {}),
  });
  const done = t(engine.strings, `done.${tap.action}`);
  try {
    switch (outcome.kind) {
      case 'accepted': {
        const updated = await engine.applyStatus(
          c.id,
          {
            status: 'completed',
            case_id: c.case_id,
            result: { action: tap.action, data: {} },
            ...(outcome.completed_at ? { at: outcome.completed_at } : {}),
          },
          'submit',
          (x) => {
            x.doc.submitted_by = body.submitted_by;
            x.claim = null;
          },
        );
        return reply('submitted', { done }, updated);
      }
      case 'unconfirmed': {
        // 2xx, but not what an accepted submit answers (an HTML page, a cut body): ask the poll.
        const current = (await settleByPoll(engine, c.id)) ?? (await engine.store.getCase(c.id));
        if (current && isTerminal(current.status))
          return current.status === 'completed' && current.doc.result?.action === tap.action
            ? reply('submitted', { done }, current)
            : reply('closed', { status: current.status }, current);
        const updated = await engine.patchDoc(c.id, { notice: t(engine.strings, 'notice.failed') });
        return reply('failed', {}, updated);
      }
      case 'unauthorized': {
        const updated = await engine.patchDoc(c.id, {
          inline_unavailable: true,
          notice: t(engine.strings, 'notice.inline_unavailable'),
        });
        return reply('inline_unavailable', {}, updated);
      }
      case 'forbidden': {
        // Verification errors mean no inline path will work for this case; action_not_inline is about this action only.
        const updated = outcome.error.startsWith('verification')
          ? await engine.patchDoc(c.id, {
              inline_unavailable: true,
              notice: t(engine.strings, 'notice.use_review_url'),
            })
          : undefined;
        return reply('use_review_url', {}, updated);
      }
      case 'closed': {
        const settled = await settleByPoll(engine, c.id);
        const now =
          settled ??
          (outcome.status === 410
            ? await engine.applyStatus(
                c.id,
                { status: 'expired', case_id: c.case_id },
                'submit_410',
              )
            : undefined);
        const current = now ?? (await engine.store.getCase(c.id));
        return reply('closed', { status: current?.status ?? 'closed' }, current);
      }
      default: {
        const updated = await engine.patchDoc(c.id, { notice: t(engine.strings, 'notice.failed') });
        return reply('failed', {}, updated);
      }
    }
  } finally {
    await engine.store.releaseClaim(c.id, holder);
  }
}

/** Claims the case; an expired claim (a submit whose outcome is unknown) is settled by a poll first. */
async function claim(engine: Engine, c: StoredCase, holder: string): Promise<boolean> {
  const until = engine.now() + CLAIM_MS;
  if (await engine.store.claimCase(c.id, holder, until)) return true;
  const current = await engine.store.getCase(c.id);
  if (!current?.claim || current.claim.until >= engine.now()) return false;
  // Take over only when a poll read the case still open: a failed poll leaves the lost submit's
  // outcome unknown, and submitting again then could make a second POST.
  const read = await pollOnce(current.doc.hitl.poll_url, null, {
    dispatcher: engine.dispatcher,
    now: engine.now(),
    expectedCaseId: current.case_id,
  });
  if (read.kind !== 'status') return false;
  await engine.applyStatus(c.id, read.update, 'poll');
  const latest = await engine.store.getCase(c.id);
  if (!latest || isTerminal(latest.status)) return false;
  const took = await engine.store.takeOverClaim(c.id, current.claim.holder, holder, until);
  if (took) engine.events.emit('takeover', 'claim', c.id); // counted in /metrics
  return took;
}

/** Reads the case's real state from poll_url and applies it; returns the case when it changed. */
export async function settleByPoll(engine: Engine, id: string): Promise<StoredCase | undefined> {
  const c = await engine.store.getCase(id);
  if (!c) return undefined;
  const r = await pollOnce(c.doc.hitl.poll_url, null, {
    dispatcher: engine.dispatcher,
    now: engine.now(),
    expectedCaseId: c.case_id,
  });
  if (r.kind !== 'status') return undefined;
  return engine.applyStatus(id, r.update, 'poll');
}
