/** docs/api.md is generated from the relay's OpenAPI document (scripts/api-reference.ts). */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderApiReference } from '../../scripts/api-reference.ts';
import { normalizeMarkdown } from '../../scripts/config-reference.ts';

it('docs/api.md is what /openapi.json says (run npx tsx scripts/api-reference.ts)', () => {
  const page = readFileSync('docs/api.md', 'utf8');
  expect(normalizeMarkdown(page)).toBe(normalizeMarkdown(renderApiReference()));
  for (const route of ['POST `/v1/cases`', 'GET `/v1/cases/{id}/wait`', 'POST `/v1/asks`'])
    expect(page).toContain(route);
});
