import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { CORPUS_FOUND, CORPUS_MISSING_LINE } from './test/helpers/corpus-location.ts';
import { ALONE, UNIT_TESTS } from './test/projects.ts';
import { SlowFirstSequencer } from './test/setup/sequencer.ts';

// Tests that check against the upstream protocol corpus are tagged `corpus`. Without the corpus
// they are skipped, and the run says so once; CI (HITL_PROTOCOL_REQUIRED=1) may not skip them.
if (!CORPUS_FOUND) {
  if (process.env.HITL_PROTOCOL_REQUIRED === '1') throw new Error(CORPUS_MISSING_LINE);
  console.warn(CORPUS_MISSING_LINE);
}

const tags = [
  {
    name: 'corpus',
    description:
      'reads the HITL Protocol schemas or examples (HITL_PROTOCOL_DIR or ../shared/hitl-protocol)',
    skip: !CORPUS_FOUND,
  },
];

// Three projects (test/projects.ts says which file is which); `vitest run` runs them all, as npm
// test does: unit and integration side by side, then the `alone` files one at a time.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: a single worker on the 2-core CI
    // machine, where the integration files spend most of their time waiting on sockets, child
    // processes and timers, not on the CPU. Two workers there (more on bigger machines).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: SlowFirstSequencer },
    tags,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [...UNIT_TESTS],
          setupFiles: ['test/setup/no-sockets.ts'],
          // Nothing started, nothing global changed: the files share their workers' module cache,
          // which is most of a unit run's time (a fresh fork per file imports everything again).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT_TESTS, ...ALONE],
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: [...ALONE],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
