import { runAdapterContract } from '../../contract/adapter-contract.ts';
import { makeTelegramPollingHarness, makeTelegramWebhookHarness } from './harness.ts';

runAdapterContract('telegram (long polling)', makeTelegramPollingHarness);
runAdapterContract('telegram (webhook)', makeTelegramWebhookHarness);
