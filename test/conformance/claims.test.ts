/**
 * `submitted_by` is a claim, never verified identity (spec v0.9 §7.5 "caller-reported origin
 * metadata", §13.8 item 4): every surface that shows it says so, and no page of the docs calls it
 * verified. The receipt's wording is proven end to end in receipts/receipts-e2e.test.ts (CLAIM-2).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCase } from '../../src/cli/output.ts';
import type { CaseView } from '../../src/client/types.ts';
import { readConfig } from '../../src/config/config.ts';
import { SUBMITTED_BY_CLAIM } from '../../src/protocol/claims.ts';
import { openApiDocument } from '../../src/server/openapi.ts';

function markdown(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdown(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The prose paragraphs of a page (code blocks left out: they show wire data, not wording). */
function paragraphs(path: string): string[] {
  const text = readFileSync(path, 'utf8').replace(/```[\s\S]*?```/g, '');
  return text.split(/\n\s*\n/);
}

const PAGES = [
  'README.md',
  'SECURITY.md',
  ...markdown('docs'),
  ...readdirSync('platforms')
    .map((p) => `platforms/${p}/README.md`)
    .filter((p) => existsSync(p)),
];

describe('submitted_by is a claim', () => {
  it('CLAIM-1 the API reference describes submitted_by as a claim, not verified identity', () => {
    const doc = openApiDocument({ config: readConfig({}), adapters: [] }) as any;
    const schema = doc.components.schemas.SubmittedBy;
    expect(schema.description).toContain(SUBMITTED_BY_CLAIM);
    expect(SUBMITTED_BY_CLAIM).toMatch(/^a claim, not verified identity/);
  });

  it('CLAIM-3 the CLI names who reported the tap, not who was verified', () => {
    const view = {
      id: 'hc_1',
      case_id: 'c1',
      service: 'https://svc.example',
      target: 'web:ops',
      type: 'approval',
      prompt: 'Deploy?',
      status: 'completed',
      final: true,
      result: { action: 'approve', data: {} },
      submitted_by: { platform: 'slack', platform_user_id: 'U123', display_name: 'Ann' },
      responded_by: null,
      messages: [],
      history: [],
    } as unknown as CaseView;
    expect(formatCase(view)).toContain('approve  by Ann (reported by slack as U123)');
  });

  it('CLAIM-4 no page of the docs calls submitted_by verified; the pages that define it say claim', () => {
    const overclaims: string[] = [];
    for (const page of PAGES)
      for (const p of paragraphs(page)) {
        if (!/submitted_by/.test(p) || !/verified/i.test(p)) continue;
        // "verified" may appear only denied ("not verified", "never verified", "not a verified").
        const bare = p.replace(/\b(not|never|no|nor)( a)? verified\b/gi, '');
        if (/\bverified (identity|person|user|reviewer)\b/i.test(bare))
          overclaims.push(`${page}: ${p.slice(0, 120)}`);
      }
    expect(overclaims).toEqual([]);
    for (const page of ['docs/client.md', 'docs/four-eyes.md']) {
      const defining = paragraphs(page).filter((p) => /submitted_by/.test(p) && /claim/.test(p));
      expect(defining.length, page).toBeGreaterThan(0);
    }
  });
});
