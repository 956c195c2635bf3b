/**
 * The agent checklist's "Forward form metadata": a card says how many fields a service's form has,
 * how many are required, and the titles of its steps, on every platform; never a field's label,
 * value, default, placeholder, hint or option (any of them may be sensitive).
 */
import { describe, expect, it } from 'vitest';
import { renderMessage as renderDiscord } from '../../platforms/discord/render.ts';
import { renderCard as renderSlack } from '../../platforms/slack/render.ts';
import { renderTeamsCard } from '../../platforms/teams/render.ts';
import { renderCard as renderTelegram } from '../../platforms/telegram/render.ts';
import { renderWebMessage } from '../../platforms/web/render.ts';
import { renderCase } from '../../src/cases/render-case.ts';
import { loadStrings } from '../../src/render/templates.ts';
import type { StoredCase } from '../../src/store/types.ts';
import { sampleCase } from '../contract/store-contract.ts';
import { example202Bodies } from '../helpers/spec.ts';

const s = loadStrings('en');
const secrets = { submit_token: null, review_url: 'https://svc.example/review/1?token=abc' };

/** A stored case of a 202 body's hitl object (the secrets are kept apart, as the store does). */
function caseOf(
  hitl: Record<string, any>,
  status: StoredCase['status'] = 'pending',
  doc: Partial<StoredCase['doc']> = {},
): StoredCase {
  const { submit_token: _t, review_url: _r, ...stored } = hitl;
  const c = sampleCase({ status });
  c.doc = { ...c.doc, ...doc, hitl: stored as StoredCase['doc']['hitl'] };
  return c;
}

const withContext = (context: Record<string, unknown>) =>
  caseOf({ ...sampleCase().doc.hitl, type: 'input', context });

/** The card as each platform sends it, as text. */
function onEveryPlatform(card: ReturnType<typeof renderCase>): Record<string, string> {
  return {
    telegram: JSON.stringify(renderTelegram(card)),
    slack: JSON.stringify(renderSlack(card)),
    discord: JSON.stringify(renderDiscord(card)),
    teams: JSON.stringify(renderTeamsCard(card)),
    web: JSON.stringify(renderWebMessage('m1', card, null)),
  };
}

/** Every text of a form's fields a person could type or read on the review page. */
function fieldTexts(form: any): string[] {
  const fields = [...(form.fields ?? []), ...(form.steps ?? []).flatMap((x: any) => x.fields)];
  return fields.flatMap((f: any) => [
    f.label,
    f.placeholder,
    f.hint,
    ...(f.default === undefined || typeof f.default === 'boolean' ? [] : [String(f.default)]),
    ...(f.options ?? []).map((o: any) => o.label),
    ...(form.steps ?? []).map((x: any) => x.description),
  ]);
}

const EXPECTED: Record<string, string> = {
  '04-input-form.json': 'Form: 6 fields, 5 required',
  '08-multi-step-input.json':
    '3-step form: Personal Information → Work Preferences → Review & Submit · 10 fields, 7 required',
};

describe('form metadata on the card', () => {
  it('FORM-2 shows the field count, required count and step titles of the spec examples on every platform, never a field', {
    tags: ['corpus'],
  }, () => {
    const withForm = example202Bodies().filter((e) => e.body.hitl.context?.form);
    expect(withForm.map((e) => e.file).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const { file, body } of withForm) {
      const form = body.hitl.context.form;
      const card = renderCase(caseOf(body.hitl), secrets, s);
      // First of the context lines, so a platform that keeps only the first lines keeps it.
      expect(card.lines[0], file).toBe(EXPECTED[file]);
      // The same form, with nothing else in the context: no field text reaches a card or platform.
      const bare = renderCase(withContext({ form }), secrets, s);
      expect(bare.lines).toEqual([EXPECTED[file]]);
      const hidden = fieldTexts(form).filter((x) => typeof x === 'string' && x.length > 3);
      expect(hidden.length, file).toBeGreaterThan(8);
      const payloads = { card: JSON.stringify(bare), ...onEveryPlatform(bare) };
      for (const [where, text] of Object.entries(payloads)) {
        // The summary is there (its part without markup characters)...
        expect(text, `${file} on ${where}`).toContain(EXPECTED[file]!.split(' · ').at(-1));
        // ...and no field's label, placeholder, hint, default or option.
        for (const secret of hidden) expect(text, `${file} on ${where}`).not.toContain(secret);
      }
      if (form.steps)
        for (const text of Object.values(payloads))
          expect(text).toContain('Personal Information → Work Preferences');
    }
  });

  it('keeps the form line on the final card beside what was entered', { tags: ['corpus'] }, () => {
    const example = example202Bodies().find((e) => e.file === '04-input-form.json')!;
    const c = caseOf(example.body.hitl, 'completed', {
      result: { action: 'submit', data: { salary_expectation: 108000, salary_negotiable: true } },
    });
    const card = renderCase(c, secrets, s);
    expect(card.lines[0]).toBe('Form: 6 fields, 5 required');
    expect(card.status).toContain('Entered: Salary Negotiable?: yes (+1 sensitive, not shown)');
    expect(JSON.stringify(card)).not.toContain('108000');
  });

  it('words any form the service sends, bounded, and survives malformed ones', () => {
    const line = (form: unknown) => renderCase(withContext({ form }), secrets, s).lines;
    expect(line({ fields: [{ key: 'a', label: 'A', type: 'text' }] })).toEqual(['Form: 1 field']);
    expect(line({ fields: [{ key: 'a', required: true }, { key: 'b' }] })).toEqual([
      'Form: 2 fields, 1 required',
    ]);
    // One step is a single-step form; steps without titles are numbered; no fields, no count.
    expect(line({ steps: [{ title: 'Only', fields: [{ key: 'a' }] }] })).toEqual(['Form: 1 field']);
    expect(line({ steps: [{ fields: [] }, { title: 7, fields: [] }] })).toEqual([
      '2-step form: Step 1 → Step 2',
    ]);
    const many = Array.from({ length: 9 }, (_, i) => ({
      title: `Step title ${i + 1} ${'x'.repeat(60)}`,
      fields: [{ key: `f${i}`, required: true }],
    }));
    const [long] = line({ steps: many });
    expect(long).toMatch(/^9-step form: Step title 1 x+… → /);
    expect(long).toMatch(/… \(\+3 more\) · 9 fields, 9 required$/);
    expect(long!.length).toBeLessThanOrEqual(200);
    // Bidirectional controls in a title are removed like everywhere else on a card.
    expect(
      line({
        steps: [
          { title: 'A\u202Eb', fields: [] },
          { title: 'C', fields: [] },
        ],
      }),
    ).toEqual(['2-step form: Ab → C']);
    for (const bad of [null, 'form', 3, [], {}, { fields: 'x' }, { fields: [null, 1, 'a'] }])
      expect(line(bad)).toEqual([]);
    expect(line({ fields: [null, { key: 'a' }], steps: 'x' })).toEqual(['Form: 1 field']);
    // A final card with a malformed form still renders (the entered line reads the same fields).
    const c = caseOf(
      {
        ...sampleCase().doc.hitl,
        type: 'input',
        context: { form: { fields: [null, { key: 'a' }] } },
      },
      'completed',
      { result: { action: 'submit', data: { a: 'yes' } } },
    );
    expect(renderCase(c, secrets, s).status).toContain('Entered: A: yes');
  });
});
