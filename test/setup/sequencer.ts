/**
 * The order files start in. Vitest runs the longest files first when it has timings from an
 * earlier run, but CI starts from a fresh clone with none, and then it orders by file size, which
 * says little here (a 30-line file can drive a SIGKILL loop for 40 s). With two workers, a long
 * file that starts last leaves the other worker idle until it ends, so the files known to be long
 * (test/projects.ts, SLOW_FIRST) start first; everything else keeps Vitest's own order.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SLOW_FIRST } from '../projects.ts';

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.indexOf(relative(f.project.config.root, f.moduleId));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    // A stable sort: projects stay apart (the integration project's files are the listed ones).
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) =>
        a.f.project.name === b.f.project.name ? rank(a.f) - rank(b.f) || a.i - b.i : a.i - b.i,
      )
      .map(({ f }) => f);
  }
}
