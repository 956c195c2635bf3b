/**
 * The card of a URL-mode elicitation (pure): the full URL as parsed, its host on a line of its
 * own (an internationalised look-alike in its `xn--` form), plain HTTP said, and the URLs a card
 * must not offer refused with a reason that does not repeat their secrets.
 */
import { describe, expect, it } from 'vitest';
import { completedNote, UrlCompletions, urlAsk } from '../../src/mcp-gateway/elicitation-url.ts';

const ask = (url: string) => urlAsk('billing', { mode: 'url', message: 'Pay the invoice', url });
const statementOf = (url: string) => {
  const made = ask(url);
  if (!made.ok) throw new Error(made.problem);
  return (made.content as { statement: string }).statement;
};

describe('urlAsk', () => {
  it('ELICIT-URL-ASK-1 the full URL and its host, each on its own line; the prompt names the upstream', () => {
    const made = ask('https://pay.example.com/checkout?session=abc#top');
    expect(made.ok && made.content).toMatchObject({
      type: 'context',
      sub_type: 'confirm',
      prompt: 'billing asks you to open a link: Pay the invoice',
    });
    const lines = statementOf('https://pay.example.com/checkout?session=abc#top').split('\n');
    expect(lines).toContain('https://pay.example.com/checkout?session=abc#top');
    expect(lines).toContain('Site: pay.example.com');
  });

  it('ELICIT-URL-ASK-2 a look-alike host (Cyrillic) shows in its xn-- form; plain http is said', () => {
    const s = statementOf('https://\u0440\u0430\u0443\u0440\u0430\u04cf.com/login');
    expect(s).toContain('Site: xn--');
    expect(s).not.toContain('\u0440');
    expect(statementOf('http://example.org/x')).toContain(
      'Site: example.org (not encrypted: http)',
    );
  });

  it('ELICIT-URL-ASK-3 refused: other schemes, credentials in the URL, not a URL, longer than a card', () => {
    const problem = (url: string) => {
      const made = ask(url);
      return made.ok ? null : made.problem;
    };
    expect(problem('javascript:alert(1)')).toContain('not https or http');
    expect(problem('data:text/html,hi')).toContain('not https or http');
    expect(problem('https://ann:secret@example.org/')).toBe(
      'its url carries credentials (user:password@)',
    );
    expect(problem('not a url')).toBe('its url is not a URL');
    expect(problem(`https://example.org/${'a'.repeat(5000)}`)).toContain(
      'longer than a card shows',
    );
  });
});

describe('UrlCompletions', () => {
  it('ELICIT-URL-ASK-4 a completion finds its case once, per upstream; the oldest of 1000 is forgotten', () => {
    const c = new UrlCompletions();
    c.remember('a', 'el-1', 'case-1');
    expect(c.take('b', 'el-1')).toBeUndefined();
    expect(c.take('a', 'el-1')).toBe('case-1');
    expect(c.take('a', 'el-1')).toBeUndefined();
    for (let i = 0; i <= 1000; i++) c.remember('a', `el-${i}`, `case-${i}`);
    expect(c.take('a', 'el-0')).toBeUndefined();
    expect(c.take('a', 'el-1000')).toBe('case-1000');
    expect(completedNote('a')).toBe('a says the interaction at the link is complete.');
  });
});
