import { runAdapterContract } from '../../contract/adapter-contract.ts';
import { makeDiscordHarness } from './harness.ts';

runAdapterContract('discord (HTTP interactions)', makeDiscordHarness);
