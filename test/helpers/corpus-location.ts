/**
 * Where the upstream HITL Protocol corpus (its schemas and examples) lies, and the one line that
 * says what to do when it is missing. Read by vitest.config.ts (which skips the tests tagged
 * `corpus` without it) and by test/helpers/spec.ts; plain Node, no vitest import.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** HITL_PROTOCOL_DIR, else ../shared/hitl-protocol beside the checkout (found from this file). */
export const PROTOCOL_DIR =
  process.env.HITL_PROTOCOL_DIR ||
  fileURLToPath(new URL('../../../shared/hitl-protocol', import.meta.url));

/** The corpus is there: its schemas/ and examples/ folders. */
export const CORPUS_FOUND =
  existsSync(`${PROTOCOL_DIR}/schemas`) && existsSync(`${PROTOCOL_DIR}/examples`);

/** The one line a run prints when the corpus is missing: what, where it looked, how to get it. */
export const CORPUS_MISSING_LINE =
  `hitl-relay tests: the HITL Protocol corpus (schemas/, examples/) is not at ${PROTOCOL_DIR}, ` +
  'so the tests tagged "corpus" are skipped; to run them, put a copy of ' +
  'github.com/rotorstar/hitl-protocol at ../shared/hitl-protocol or set HITL_PROTOCOL_DIR to it.';
