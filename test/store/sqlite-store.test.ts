import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { runStoreContract } from '../contract/store-contract.ts';

runStoreContract('sqlite', async (now) =>
  openSqliteStore(join(mkdtempSync(join(tmpdir(), 'store-')), 'db.sqlite'), now),
);
