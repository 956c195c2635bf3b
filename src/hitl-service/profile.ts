/**
 * A service profile: what makes one configuration of this HITL service differ from another. The
 * relay's own asks service (src/asks-service/) is one; the demo's five sample review types
 * (src/demo/) are another. The service itself knows only the protocol.
 */
import type { CaseSpec } from './create.ts';
import type { BrowserAnswerInput, FormParams, ReviewCase, SubmissionContext } from './types.ts';

/** A checked answer: the data to record, or what is wrong with it. */
export type ProfileCheck =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; details: Array<{ path: string; message: string }> };

/** The hooks a profile supplies. */
export interface ServiceProfile {
  /**
   * Checks an answer (`mode`: an inline submit, or the review page's own) and returns the data to
   * record.
   */
  checkAnswer(
    kase: ReviewCase,
    action: string,
    data: Record<string, unknown>,
    mode: SubmissionContext['mode'],
  ): ProfileCheck;
  /** The answer a review page form post carries. */
  formAnswer(kase: ReviewCase, params: FormParams): BrowserAnswerInput;
  /** The review page's answer controls for an open case (`editable`), or a read-only view. */
  reviewHtml(kase: ReviewCase, editable: boolean): string;
  /**
   * Buttons the review page shows below the name field, one per action, or undefined when
   * reviewHtml carries its own.
   */
  reviewButtons?(kase: ReviewCase): string;
  /**
   * The answer as the review page shows it back after the case ended (sensitive values hidden);
   * absent: the `context.form` fields marked `sensitive` are hidden.
   */
  publicAnswer?(kase: ReviewCase, data: Record<string, unknown>): Record<string, unknown>;
  /**
   * The HITL Protocol version the service's 202 bodies say (default "0.8", the demo's). The relay's
   * asks say "0.9": their poll bodies are the disjoint variants v0.9 requires (poll-answer.ts).
   */
  specVersion?: '0.8' | '0.9';
  /** Status and events answer only the owner's credential (binding.ts mayRead); else anyone. */
  privateReads?: boolean;
  /** The next round an answer starts (spec 10.1), or undefined when it ends the chain. */
  followUp?(
    kase: ReviewCase,
    result: { action: string; data: Record<string, unknown> },
  ): CaseSpec | undefined;
}
