/** The five standard review types of spec section 10: their actions, inline actions and safe defaults. */
import type { DefaultAction } from './types.ts';

/** The five standard review types of spec section 10. */
export const STANDARD_TYPES = [
  'approval',
  'selection',
  'input',
  'confirmation',
  'escalation',
] as const;

const ACTIONS: Record<string, readonly string[]> = {
  approval: ['approve', 'edit', 'reject'],
  selection: ['select'],
  input: ['submit'],
  confirmation: ['confirm', 'cancel'],
  escalation: ['retry', 'skip', 'abort'],
};

/** Every action valid for a type; custom `x-` types take a single `submit`, like input. */
export function actionsFor(type: string): readonly string[] {
  return ACTIONS[type] ?? ['submit'];
}

/**
 * The inline actions a case publishes unless it names its own; undefined means "omit the field" (all actions allowed).
 * Edit stays out of approval because it needs the artifact and a text box (spec 13.8).
 */
export function defaultInlineActions(type: string): string[] | undefined {
  if (type === 'approval') return ['approve', 'reject'];
  if (type === 'confirmation') return ['confirm', 'cancel'];
  if (type === 'escalation') return ['retry', 'skip', 'abort'];
  return undefined;
}

/** The outcome on expiry: the safe choice for each type. */
export function defaultActionFor(type: string): DefaultAction {
  if (type === 'approval') return 'reject';
  if (type === 'confirmation' || type === 'escalation') return 'abort';
  return 'skip';
}
