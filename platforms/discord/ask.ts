/**
 * Asks in Discord messages: single and multi decisions as a string select (up to 25 options,
 * min/max values from the ask) in its own action row; choosing is the answer, so the interaction's
 * `data.values` become the tap's data. Other kinds keep the Details button (the review page). Pure.
 */
import type { AdapterStrings, Tap } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { Card } from '../../src/render/card.ts';

/** custom_id of an ask select: `hitl-ask:<key>:one|many`. */
const SELECT_ID = /^hitl-ask:([A-Za-z0-9_-]{1,32}):(one|many)$/;
/** Discord's limits for a string select. */
export const DISCORD_SELECT_MAX_OPTIONS = 25;
const OPTION_TEXT_MAX = 100;

/** A string select (component type 3). */
export interface DiscordStringSelect {
  type: 3;
  custom_id: string;
  placeholder: string;
  min_values: number;
  max_values: number;
  options: Array<{ label: string; value: string; description?: string }>;
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/** The select for the card's ask, or null when Discord cannot draw it natively. */
export function askSelect(card: Card, strings?: AdapterStrings): DiscordStringSelect | null {
  const c = card.ask?.content;
  if (card.final || c?.type !== 'decision' || c.sub_type === 'rank') return null;
  if (
    c.options.length > DISCORD_SELECT_MAX_OPTIONS ||
    c.options.some((o) => o.key.length > OPTION_TEXT_MAX)
  )
    return null;
  const words = stringsOf(strings ? { strings } : null).asks;
  const multi = c.sub_type === 'multi';
  const max = multi ? Math.min(c.max_select ?? c.options.length, c.options.length) : 1;
  return {
    type: 3,
    custom_id: `hitl-ask:${card.key}:${multi ? 'many' : 'one'}`,
    placeholder: multi ? words.chooseRange(c.min_select, max) : words.chooseOne,
    min_values: multi ? Math.min(c.min_select, max) : 1,
    max_values: max,
    options: c.options.map((o) => {
      const note = [
        o.irreversible ? 'cannot be undone' : '',
        o.impact_hint ?? '',
        o.description ?? '',
      ]
        .filter(Boolean)
        .join(' · ');
      return {
        label: cut(o.label, OPTION_TEXT_MAX),
        value: o.key,
        ...(note ? { description: cut(note, OPTION_TEXT_MAX) } : {}),
      };
    }),
  };
}

/** The key and data of a choice in an ask select; null when the custom_id is not one. */
export function askSelectTap(
  customId: string | undefined,
  values: unknown,
): Pick<Tap, 'key' | 'action' | 'data'> | null {
  const m = SELECT_ID.exec(customId ?? '');
  if (!m) return null;
  const picked = Array.isArray(values)
    ? values.filter((v): v is string => typeof v === 'string')
    : [];
  const data =
    m[2] === 'one'
      ? picked[0] !== undefined
        ? { selected: picked[0] }
        : {}
      : { selected: picked };
  return { key: m[1]!, action: 'select', data };
}
