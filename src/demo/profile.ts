/**
 * A service profile: what makes a configuration of this HITL service differ from the demo's five
 * review types. The relay's own asks service (src/asks/) is one; without a profile the demo's
 * built-in types, checks and review page apply.
 */
import type { BrowserAnswerInput, DemoCase, FormParams } from './types.ts';

/** A checked answer: the data to record, or what is wrong with it. */
export type ProfileCheck =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; details: Array<{ path: string; message: string }> };

/** The hooks a profile supplies. */
export interface ServiceProfile {
  /** Checks an answer (inline or from the review page) and returns the data to record. */
  checkAnswer(kase: DemoCase, action: string, data: Record<string, unknown>): ProfileCheck;
  /** The answer a review page form post carries. */
  formAnswer(kase: DemoCase, params: FormParams): BrowserAnswerInput;
  /** The review page's answer controls and buttons for an open case (`editable`), or a read-only view. */
  reviewHtml(kase: DemoCase, editable: boolean): string;
}
