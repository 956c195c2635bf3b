/**
 * Each kind as a HITL Protocol review: its `type`, the actions an answer is submitted with, which of
 * them chats may submit inline, and the safe `default_action`. Documented in
 * docs/asks.md. Pure.
 */
import type { AskContent } from './content.ts';

/** How one content is published as a protocol case. */
export interface ProtocolMapping {
  /** approval, selection, input, confirmation, or an `x-` type. */
  type: string;
  /** Every action an answer can carry. */
  actions: string[];
  /** Actions a relay may submit inline (all of them: answers carry their data). */
  inline_actions: string[];
  /** What expiry means when the agent gives no `default`. */
  default_action: 'skip' | 'approve' | 'reject' | 'abort';
  /** The `default` values an agent may choose. */
  defaults: Array<'skip' | 'approve' | 'reject' | 'abort'>;
}

const APPROVAL_KEYS = new Set(['approve', 'reject']);

/**
 * The mapping: approvals whose choices are approve/reject are protocol `approval` (the choice key is
 * the action, so any chat's plain buttons answer them); approvals with other choice keys are
 * `x-approval` (action `submit`); single/multi are `selection` (`select`); rank is `x-rank`;
 * freetext, form and both edits are `input` (`submit`); confirm is `confirmation` (confirm/cancel).
 */
export function protocolOf(content: AskContent): ProtocolMapping {
  const inputLike = (type: string): ProtocolMapping => ({
    type,
    actions: ['submit'],
    inline_actions: ['submit'],
    default_action: 'skip',
    defaults: ['skip', 'abort'],
  });
  switch (content.type) {
    case 'approval': {
      const keys = content.choices.map((c) => c.key);
      if (keys.every((k) => APPROVAL_KEYS.has(k)))
        return {
          type: 'approval',
          actions: keys,
          inline_actions: keys,
          default_action: 'reject',
          defaults: ['reject', 'approve', 'skip', 'abort'],
        };
      return { ...inputLike('x-approval'), default_action: 'skip' };
    }
    case 'decision':
      if (content.sub_type === 'rank') return inputLike('x-rank');
      return { ...inputLike('selection'), actions: ['select'], inline_actions: ['select'] };
    case 'context':
      if (content.sub_type === 'confirm')
        return {
          type: 'confirmation',
          actions: ['confirm', 'cancel'],
          inline_actions: ['confirm', 'cancel'],
          default_action: 'abort',
          defaults: ['abort', 'skip'],
        };
      return inputLike('input');
    case 'edit':
      return inputLike('input');
  }
}
