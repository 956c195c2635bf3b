/** What a CLI command runs with: its streams, environment and standard input (tests pass their own). */
import type { Io } from './output.ts';

/** The world of one CLI run. */
export interface CliContext {
  io: Io;
  env: NodeJS.ProcessEnv;
  /** Reads all of standard input. */
  stdin(): Promise<string>;
}
