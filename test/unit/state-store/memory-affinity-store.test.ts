import { describe, expect, it } from 'vitest';
import { createMemoryAffinityStore } from '../../../infra/state-store/memory/memory-affinity-store.ts';
import { describeAffinityStoreContract } from './affinity-store-contract.ts';

let now = 1_767_225_600_000;
describeAffinityStoreContract('memory', {
  // a memory store holds its own pins only: every store is its own namespace
  sharedByNamespace: false,
  make: async () => createMemoryAffinityStore({ clock: () => now }),
  advance: async (ms) => {
    now += ms;
  },
});

describe('memory affinity store', () => {
  it('expires exactly at put time + ttl', async () => {
    let t = 0;
    const store = createMemoryAffinityStore({ clock: () => t });
    await store.put('k', { channelId: 'c' }, 1_000);
    t = 999;
    expect(await store.get('k')).toEqual({ channelId: 'c' });
    t = 1_000;
    expect(await store.get('k')).toBeUndefined();
  });

  it('holds at most maxPins, dropping the least recently pinned first', async () => {
    const store = createMemoryAffinityStore({ maxPins: 2 });
    await store.put('a', { channelId: 'c1' }, 60_000);
    await store.put('b', { channelId: 'c2' }, 60_000);
    await store.put('a', { channelId: 'c1' }, 60_000);
    await store.put('c', { channelId: 'c3' }, 60_000);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toEqual({ channelId: 'c1' });
    expect(await store.get('c')).toEqual({ channelId: 'c3' });
  });
});
