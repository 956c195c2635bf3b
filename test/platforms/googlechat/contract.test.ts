import { runAdapterContract } from '../../contract/adapter-contract.ts';
import { makeGooglechatContractHarness } from './harness.ts';

runAdapterContract('googlechat (Chat app HTTP endpoint)', makeGooglechatContractHarness);
