/** Temporary directories a test file makes and removes when it is done (nothing left in /tmp). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Call at the top level of a test file: `make(prefix)` creates a directory under the system temp
 * dir, and every one made is removed after the file's last test (registered first, so it runs after
 * the file's own afterAll hooks have stopped what uses them).
 */
export function tempDirs(): { make(prefix: string): string } {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    make(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
  };
}
