/** Command-line switches shared by the benchmarks: `--full` for the sizes, `--only=a,b` to pick parts. */
import { parseArgs } from 'node:util';

/** What the command line asked for. */
export interface BenchArgs {
  full: boolean;
  only: string[] | null;
  /** Directory for a CPU profile of the measured phase (`--profile=DIR`), or null. */
  profile: string | null;
  /** Directory for a sampled profile of what outlived the young generation (`--heap-profile=DIR`). */
  heapProfile: string | null;
}

/** Reads process.argv. */
export function benchArgs(): BenchArgs {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      full: { type: 'boolean', default: false },
      only: { type: 'string' },
      profile: { type: 'string' },
      'heap-profile': { type: 'string' },
    },
    strict: false,
  });
  return {
    full: values.full === true,
    only: typeof values.only === 'string' ? values.only.split(',').filter(Boolean) : null,
    profile: typeof values.profile === 'string' ? values.profile : null,
    heapProfile: typeof values['heap-profile'] === 'string' ? values['heap-profile'] : null,
  };
}

/** True when `part` should run under `--only`. */
export function wants(args: BenchArgs, part: string): boolean {
  return args.only === null || args.only.includes(part);
}
