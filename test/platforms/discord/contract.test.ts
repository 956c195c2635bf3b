import { runAdapterContract } from '../../contract/adapter-contract.ts';
import { makeDiscordGatewayHarness } from './gateway-harness.ts';
import { makeDiscordHarness } from './harness.ts';

runAdapterContract('discord (HTTP interactions)', makeDiscordHarness);
runAdapterContract('discord (gateway)', makeDiscordGatewayHarness);
