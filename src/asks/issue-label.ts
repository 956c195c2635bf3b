/**
 * A refused answer's issue as people read it: the field's label instead of the internal path
 * ("data.values.ticket_id" -> "Ticket ID"), so a person sees which field and what it needs. The
 * path stays on the issue for platforms that place the message beside its input. Pure.
 */
import type { AskContent } from './content.ts';

/** The label of what `path` (as checkAnswer names it) points at in `content`. */
export function issueLabel(content: AskContent, path: string): string {
  const [, part, key] = /^data\.(\w+)(?:\.(.+))?$/.exec(path) ?? [];
  const listed = (list: Array<{ key: string; label: string }>) =>
    (key !== undefined ? list.find((x) => x.key === key)?.label : undefined) ?? key ?? 'Answer';
  switch (part) {
    case 'values':
      if (content.type === 'context' && content.sub_type === 'form') return listed(content.fields);
      if (content.type === 'approval' && content.sub_type === 'modify')
        return listed(content.modifiable);
      return 'Values';
    case 'args':
      return content.type === 'edit' && content.sub_type === 'tool_args'
        ? listed(content.args)
        : 'Arguments';
    case 'value':
      return content.type === 'context' && content.sub_type === 'freetext'
        ? content.input.label
        : 'Answer';
    case 'selected':
      return 'Your choice';
    case 'ranking':
      return 'The ranking';
    case 'decision':
      return 'The decision';
    case 'content':
      return 'The text';
    case 'confirmed':
      return 'The confirmation';
    default:
      return 'That answer';
  }
}
