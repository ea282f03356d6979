import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import { describeStateStoreContract, pos } from './state-store-contract.ts';

describeStateStoreContract('memory', async () => createMemoryStateStore());

describe('memory state store', () => {
  it('keeps one watermark per partition, not one entry per event', async () => {
    const store = createMemoryStateStore();
    for (let offset = 0; offset < 10_000; offset++) await store.addSpend(pos(offset), 'k', null, 1n);
    for (let offset = 0; offset < 10_000; offset++)
      expect(await store.addSpend(pos(offset), 'k', null, 1n)).toBe(false);
    expect((await store.getSpend('k', null)).keyNanoUsd).toBe(10_000n);
  });
});
