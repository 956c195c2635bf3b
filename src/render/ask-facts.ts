/**
 * What a person must read to answer an open ask, as plain lines, for a platform whose widgets do
 * not show it themselves: a confirm's whole statement, a draft, a tool's arguments (read-only ones
 * marked), an approval.modify's current values (before a one-tap approve), and the impact hints of
 * choices and options. Platforms escape and fit the lines; none of it is cut here. Pure.
 */
import type { AskContent } from '../asks/content.ts';
import type { CardField } from './card.ts';

/** A value as people read it: a DROPDOWN's list as "a / b", booleans as yes / no. */
function shown(v: unknown): string {
  if (Array.isArray(v)) return v.map(String).join(' / ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v ?? '');
}

type Described = {
  label: string;
  irreversible?: boolean;
  impact_hint?: string | undefined;
  description?: string | undefined;
};

/** "Label: description · ⚠️ cannot be undone: hint" for a choice or option that has any of them. */
export function describedLine(o: Described): string | null {
  const notes = [
    o.description ?? '',
    o.irreversible ? `⚠️ cannot be undone${o.impact_hint ? `: ${o.impact_hint}` : ''}` : '',
    !o.irreversible && o.impact_hint ? o.impact_hint : '',
  ].filter(Boolean);
  return notes.length ? `${o.label}: ${notes.join(' · ')}` : null;
}

/**
 * The values an open ask puts to the person as rows (approval.modify's current values, a tool's
 * arguments with read-only ones marked), each `line` exactly as askFacts says it.
 */
export function askFactRows(content: AskContent): CardField[] {
  const row = (label: string, value: string): CardField => ({
    label,
    value,
    line: `${label}: ${value}`,
  });
  if (content.type === 'approval' && content.sub_type === 'modify')
    return content.modifiable.map((f) => row(f.label, shown(f.value)));
  if (content.type === 'edit' && content.sub_type === 'tool_args')
    return content.args.map((a) =>
      row(a.label, `${shown(a.value)}${a.editable ? '' : ' (read-only)'}`),
    );
  return [];
}

/** Which facts the platform's widgets already show, so they are not said twice. */
export interface AskFactsOptions {
  /** The widgets show each option's description and impact hint (Slack select options do). */
  optionNotes?: boolean;
}

/** The lines of `content` a card shows beside its widgets (empty for a kind with nothing more). */
export function askFacts(content: AskContent, options: AskFactsOptions = {}): string[] {
  const notes = (list: Described[]) =>
    list.map(describedLine).filter((l): l is string => l !== null);
  switch (content.type) {
    case 'approval': {
      const hints = notes(content.choices);
      if (content.sub_type === 'binary') return hints;
      return [...askFactRows(content).map((r) => r.line), ...hints];
    }
    case 'decision':
      return options.optionNotes ? [] : notes(content.options);
    case 'context':
      return content.sub_type === 'confirm' && content.statement ? [content.statement] : [];
    case 'edit':
      if (content.sub_type === 'content') return content.draft ? [content.draft] : [];
      return [
        ...(content.tool_name ? [`Tool: ${content.tool_name}`] : []),
        ...askFactRows(content).map((r) => r.line),
      ];
  }
}
