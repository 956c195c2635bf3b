/**
 * docs/configuration.md is generated from the configuration schemas (scripts/config-reference.ts):
 * it fails here when a variable or a RELAY_CONFIG key changed and the page was not written again.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { platformEnvVars } from '../../platforms/registry.ts';
import { normalizeMarkdown, renderConfigReference } from '../../scripts/config-reference.ts';
import { CORE_ENV_VARS } from '../../src/config/config.ts';
import { DEMO_SERVE_ENV_DOCS } from '../../src/config/env-docs.ts';

it('docs/configuration.md is what the schemas say (run npx tsx scripts/config-reference.ts)', async () => {
  const page = readFileSync('docs/configuration.md', 'utf8');
  expect(normalizeMarkdown(page)).toBe(normalizeMarkdown(await renderConfigReference()));
});

it('has a row for every variable the relay, each platform and the standalone demo read', async () => {
  const page = readFileSync('docs/configuration.md', 'utf8');
  const rows = new Set([...page.matchAll(/^\| `([A-Z][A-Z0-9_]+)`\s+\|/gm)].map((m) => m[1]));
  const read = [...CORE_ENV_VARS, ...(await platformEnvVars())];
  expect(read.filter((v) => !rows.has(v))).toEqual([]);
  // The demo run alone reads process.env directly: every name it reads has its row.
  const serve = readFileSync('src/demo/serve.ts', 'utf8');
  const demoReads = [...new Set([...serve.matchAll(/process\.env\.([A-Z_]+)/g)].map((m) => m[1]!))];
  expect(demoReads.sort()).toEqual(Object.keys(DEMO_SERVE_ENV_DOCS).sort());
});

it('a variable without a meaning stops the generator, naming it', async () => {
  const { CORE_ENV_DOCS } = await import('../../src/config/env-docs.ts');
  const saved = CORE_ENV_DOCS.PORT;
  delete (CORE_ENV_DOCS as Partial<typeof CORE_ENV_DOCS>).PORT;
  try {
    await expect(renderConfigReference()).rejects.toThrow('PORT has no meaning');
  } finally {
    CORE_ENV_DOCS.PORT = saved;
  }
});
