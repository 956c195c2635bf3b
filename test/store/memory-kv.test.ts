import { beforeEach, describe } from 'vitest';
import { MemoryKeyValue } from '../../src/store/memory-kv.ts';
import { kvContract } from '../contract/kv-contract.ts';

describe('MemoryKeyValue', () => {
  let now = 10_000;
  let kv = new MemoryKeyValue(() => now);
  beforeEach(() => {
    now = 10_000;
    kv = new MemoryKeyValue(() => now);
  });
  kvContract({ kv: () => kv, advance: (ms) => (now += ms) });
});
