/**
 * A tap, from the button to the service, as a pipeline of small steps: resolve (the case and the
 * chat) → authorize (allowlist, open, inline, the answer) → confirm (two taps for an irreversible
 * answer) → claim (the service's wait, an unknown earlier submit, the vote, one claim per case) →
 * submit → settle. A step that ends the tap says why; the pipeline records it and replies.
 */
import type { Tap, TapReply } from '../adapter.ts';
import { authorize, checkTapAnswer, policyRefusal } from './authorize.ts';
import { claimForTap, serviceWait, unknownGate, voteStep } from './claim.ts';
import { confirmStep } from './confirm-irreversible.ts';
import { isStop, type ResolvedTap, type Stop, type TapDeps } from './deps.ts';
import { type Reply, replier } from './reply.ts';
import { resolveTap } from './resolve.ts';
import { settleSubmit } from './settle.ts';
import { sendSubmit } from './submit.ts';

/** What a tap that passed every check submits. */
interface Ready {
  token: string;
  data: Record<string, unknown>;
}

/** Handles taps. */
export class TapPipeline {
  constructor(private readonly d: TapDeps) {}

  /** Handles one tap; never throws (every failure is a reply the person can read). */
  async handle(tap: Tap): Promise<TapReply> {
    const { c, resolved } = await resolveTap(this.d, tap);
    const reply = replier(this.d, c);
    if (!resolved) return reply('unknown_case');
    const ready = await this.check(resolved, tap);
    if (isStop(ready)) return this.stop(resolved, ready, reply);
    const holder = await claimForTap(this.d, resolved);
    if (typeof holder !== 'string') return this.stop(resolved, holder, reply);
    const sent = await sendSubmit(this.d, resolved, tap, ready.token, ready.data, holder);
    const { carry } = sent;
    try {
      return await settleSubmit(this.d, resolved.c, tap, sent.body, sent.outcome, reply, carry);
    } finally {
      if (!carry.done) {
        for (const h of carry.history ?? [])
          await this.d.cases.history(resolved.c.id, h.kind, h.detail);
        await this.d.store.releaseClaim(resolved.c.id, holder);
      }
    }
  }

  /**
   * Whether this person may answer this case now (a known case, open, the allowlist and the
   * approval policy let them): null when they may, else the reply the tap would get. Nothing is
   * stored and nothing sent: adapters ask before collecting an answer's input.
   */
  async mayAnswer(tap: Tap): Promise<TapReply | null> {
    const { c, resolved } = await resolveTap(this.d, tap);
    const reply = replier(this.d, c);
    if (!resolved) return reply('unknown_case');
    const auth = authorize(this.d, resolved, tap);
    const stop = isStop(auth) ? auth : policyRefusal(this.d, resolved, tap);
    return stop ? reply(stop.outcome, stop.view, resolved.c) : null;
  }

  /** The steps before the claim, in order; the first that stops the tap wins. */
  private async check(t: ResolvedTap, tap: Tap): Promise<Ready | Stop> {
    const auth = authorize(this.d, t, tap);
    if (isStop(auth)) return auth;
    const answer = checkTapAnswer(t, tap, auth.ask);
    if (isStop(answer)) return answer;
    const stop =
      (await confirmStep(this.d, t, tap, answer.irreversible)) ??
      serviceWait(this.d, t) ??
      (await unknownGate(this.d, t)) ??
      (await voteStep(this.d, t, tap));
    // authorize() saw the token: an authorized tap has one.
    return stop ?? { token: auth.secrets.submit_token!, data: answer.data };
  }

  /** Records why the tap ended here (when the step says) and replies. */
  private async stop(t: ResolvedTap, s: Stop, reply: Reply): Promise<TapReply> {
    if (s.row) await this.d.cases.history(t.c.id, s.row.kind, s.row.detail);
    const r = await reply(s.outcome, s.view, s.current);
    return s.issues ? { ...r, issues: s.issues } : r;
  }
}
