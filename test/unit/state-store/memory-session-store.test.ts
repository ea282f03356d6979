import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../../infra/state-store/memory/memory-session-store.ts';
import { describeSessionStoreContract } from './session-store-contract.ts';

let now = 1_767_225_600_000;
describeSessionStoreContract('memory', {
  // a memory store holds its own sessions only: every store is its own namespace
  sharedByNamespace: false,
  make: async () => createMemorySessionStore({ clock: () => now }),
  advance: async (ms) => {
    now += ms;
  },
});

describe('memory session store', () => {
  it('expires exactly at put time + ttl', async () => {
    let t = 0;
    const store = createMemorySessionStore({ clock: () => t });
    await store.put('k', { userId: 'u', csrfSecret: 's', createdAt: 0, credentialsStamp: 'x' }, 1_000);
    t = 999;
    expect(await store.get('k')).toBeDefined();
    t = 1_000;
    expect(await store.get('k')).toBeUndefined();
  });
});
