import { runAdapterContract } from '../../contract/adapter-contract.ts';
import { makeWhatsAppContractHarness } from './harness.ts';

runAdapterContract('whatsapp (Cloud API webhook)', makeWhatsAppContractHarness);
