import { runAdapterContract } from '../../contract/adapter-contract.ts';
import { makeSlackHarness } from './harness.ts';

// HTTP mode only: Socket Mode needs a WebSocket to Slack, which is not faked here.
runAdapterContract('slack (HTTP mode)', makeSlackHarness);
