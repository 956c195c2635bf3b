import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { runInboxStoreContract } from '../contract/inbox-store-contract.ts';
import { runStoreContract } from '../contract/store-contract.ts';

runStoreContract('sqlite', async (now) =>
  openSqliteStore(join(mkdtempSync(join(tmpdir(), 'store-')), 'db.sqlite'), now),
);

runInboxStoreContract('sqlite', async (now) =>
  openSqliteStore(join(mkdtempSync(join(tmpdir(), 'store-')), 'db.sqlite'), now),
);
