import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { runInboxStoreContract } from '../contract/inbox-store-contract.ts';
import { runStoreContract } from '../contract/store-contract.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';

runStoreContract('postgres', async (now) => openPostgresStore(await freshSchemaUrl(), now));

runInboxStoreContract('postgres', async (now) => openPostgresStore(await freshSchemaUrl(), now));
