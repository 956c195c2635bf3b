import { runAdapterContract } from '../../contract/adapter-contract.ts';
import { makeTeamsHarness } from './harness.ts';

// Teams has one receive mode: the Bot Connector POSTs activities to /api/messages.
runAdapterContract('teams', makeTeamsHarness);
