import { runAdapterContract } from '../../contract/adapter-contract.ts';
import { makeSlackHarness } from './harness.ts';
import { makeSlackSocketHarness } from './socket-harness.ts';

runAdapterContract('slack (HTTP mode)', makeSlackHarness);
runAdapterContract('slack (Socket Mode)', makeSlackSocketHarness);
