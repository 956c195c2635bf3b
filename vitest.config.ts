import { defineConfig } from 'vitest/config';
import { CORPUS_FOUND, CORPUS_MISSING_LINE } from './test/helpers/corpus-location.ts';

// Tests that check against the upstream protocol corpus are tagged `corpus`. Without the corpus
// they are skipped, and the run says so once; CI (HITL_PROTOCOL_REQUIRED=1) may not skip them.
if (!CORPUS_FOUND) {
  if (process.env.HITL_PROTOCOL_REQUIRED === '1') throw new Error(CORPUS_MISSING_LINE);
  console.warn(CORPUS_MISSING_LINE);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    tags: [
      {
        name: 'corpus',
        description:
          'reads the HITL Protocol schemas or examples (HITL_PROTOCOL_DIR or ../shared/hitl-protocol)',
        skip: !CORPUS_FOUND,
      },
    ],
  },
});
