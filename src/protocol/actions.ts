/** Actions per review type and which of them can be buttons in a chat (spec sections 7.5, 7.6, 7.7, 10). */
import type { HitlObject } from './hitl.ts';
import type { SubmittedBy } from './types.ts';

/** All actions of each standard type (spec section 10). */
export const TYPE_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  approval: ['approve', 'edit', 'reject'],
  selection: ['select'],
  input: ['submit'],
  confirmation: ['confirm', 'cancel'],
  escalation: ['retry', 'skip', 'abort'],
};

/**
 * Actions that need the review page: they carry data a button cannot (an edit, a selection, form
 * input). Custom `x-` types are read as input, so they get the Details link only.
 */
const BROWSER_ONLY: ReadonlySet<string> = new Set(['edit', 'select', 'submit']);

/** The actions of a review type (`x-` types count as input). */
export function actionsOf(type: string): readonly string[] {
  return TYPE_ACTIONS[type] ?? TYPE_ACTIONS.input!;
}

/** Why a case has no inline buttons, or null when it has some. */
export type InlineBlock = 'no_submit_url' | 'verification_required' | 'no_inline_actions' | null;

/** The inline (button) actions for a case, and why there are none when empty. */
export function inlineActions(
  hitl: Pick<HitlObject, 'type' | 'submit_url' | 'inline_actions' | 'verification_policy'>,
  hasSubmitToken: boolean,
): { actions: string[]; blocked: InlineBlock } {
  if (!hitl.submit_url || !hasSubmitToken) return { actions: [], blocked: 'no_submit_url' };
  const policy = hitl.verification_policy;
  // We relay no proof-of-human evidence, so a policy that wants proof for inline_submit
  // ("required" or "step_up") cannot be satisfied in chat: Details only (spec 7.6, example 15).
  if (policy && policy.mode !== 'optional' && policy.required_for?.includes('inline_submit'))
    return { actions: [], blocked: 'verification_required' };
  const ofType = actionsOf(hitl.type).filter((a) => !BROWSER_ONLY.has(a));
  const allowed = hitl.inline_actions
    ? ofType.filter((a) => hitl.inline_actions!.includes(a))
    : ofType;
  return { actions: allowed, blocked: allowed.length ? null : 'no_inline_actions' };
}

/** Actions after which there is no way back, which want a second, confirming tap. */
export function isIrreversible(
  hitl: Pick<HitlObject, 'type' | 'context'>,
  action: string,
): boolean {
  const ctx = (hitl.context ?? {}) as Record<string, unknown>;
  if (action === 'cancel' || action === 'reject' || action === 'skip') return false;
  if (hitl.type === 'confirmation' && action === 'confirm') return true;
  if (ctx.irreversible === true) return action !== 'retry';
  return hitl.type === 'escalation' && action === 'abort';
}

/** The body of an inline submit (spec 7.5; validates against submit-request.schema.json). */
export interface SubmitRequest {
  action: string;
  data: Record<string, unknown>;
  submitted_via: string;
  submitted_by: SubmittedBy;
}

/** `submitted_via` per platform; others use the spec's `x-` form. */
const SUBMITTED_VIA: Readonly<Record<string, string>> = {
  telegram: 'telegram_inline_button',
  slack: 'slack_block_action',
  discord: 'discord_component',
  whatsapp: 'whatsapp_reply_button',
  teams: 'teams_adaptive_card',
};
const KNOWN_PLATFORMS = new Set(['telegram', 'slack', 'discord', 'whatsapp', 'teams']);

/** Builds the submit request for a tap. */
export function buildSubmitRequest(
  action: string,
  platform: string,
  user: { id: string; name?: string | undefined },
): SubmitRequest {
  const by: SubmittedBy = {
    platform: KNOWN_PLATFORMS.has(platform) ? platform : `x-${platform}`,
    platform_user_id: user.id,
  };
  if (user.name) by.display_name = user.name.slice(0, 200);
  return {
    action,
    data: {},
    submitted_via: SUBMITTED_VIA[platform] ?? `x-${platform}_button`,
    submitted_by: by,
  };
}
