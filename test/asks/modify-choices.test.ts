/** approval.modify has no default choices (docs/asks.md says so): without them it is refused by name. */
import { expect, it } from 'vitest';
import { parseAskContent } from '../../src/asks/content.ts';

it('refuses approval.modify without choices, naming content.choices; binary defaults them', () => {
  const modifiable = [{ key: 'amount', label: 'Amount', value: 10, type: 'NUMBER' }];
  const modify = parseAskContent({
    type: 'approval',
    sub_type: 'modify',
    prompt: 'Pay?',
    modifiable,
  });
  expect(modify.ok).toBe(false);
  if (!modify.ok) expect(modify.issues.map((i) => i.path)).toContain('content.choices');
  expect(parseAskContent({ type: 'approval', sub_type: 'binary', prompt: 'Pay?' }).ok).toBe(true);
});
