import { runAdapterContract } from '../contract/adapter-contract.ts';
import { makeWebHarness } from './web-harness.ts';

runAdapterContract('web chat', makeWebHarness);
