/**
 * Whether an open SQLite file is still the one at its path. Deleting the file (and its WAL) under
 * a running process does not stop SQLite: it goes on writing to the unlinked inode, every write
 * succeeds, and all of it is lost at the next restart. So the readiness check compares the path's
 * inode with the one opened.
 */
import { statSync } from 'node:fs';

/** A check for `file`: null while it is the file opened, else why not (naming the file). */
export function sqliteFileCheck(file: string): () => string | null {
  const opened = statSync(file);
  return () => {
    try {
      const now = statSync(file);
      if (now.ino === opened.ino && now.dev === opened.dev) return null;
      return `the SQLite file ${file} was replaced under the running relay: writes go to the old one; restart the relay`;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT')
        return `the SQLite file ${file} cannot be read: ${code ?? String(err)}`;
      return `the SQLite file ${file} was deleted under the running relay: writes are lost at the next restart; restore it or restart the relay`;
    }
  };
}
