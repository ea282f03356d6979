import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import { describeStateStoreContract } from './state-store-contract.ts';

describeStateStoreContract('memory', async () => createMemoryStateStore());

describe('memory state store', () => {
  it('forgets applied event ids after 7 days, like the Redis guard TTL', async () => {
    let now = 0;
    const store = createMemoryStateStore({ clock: () => now });
    expect(await store.addSpend('e1', 'k', null, 5n)).toBe(true);
    now = 604_800_000 - 1;
    expect(await store.addSpend('e1', 'k', null, 5n)).toBe(false);
    now = 604_800_000;
    expect(await store.addSpend('e1', 'k', null, 5n)).toBe(true);
    expect((await store.getSpend('k', null)).keyNanoUsd).toBe(10n);
  });
});
