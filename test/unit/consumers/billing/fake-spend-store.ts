/**
 * The billing tests' spend store: the real in-process state store, recording every addSpend call
 * and able to make the next calls fail (before anything is applied).
 */
import { createMemoryStateStore } from '../../../../infra/state-store/memory/memory-state-store.ts';
import type { LogPosition, StateStore } from '../../../../schemas/state-store/state-store.ts';

/** The store, with what it has been asked. */
export interface FakeSpendStore extends Pick<StateStore, 'addSpend' | 'getSpend'> {
  /** Every addSpend call, duplicates included. */
  readonly calls: Array<{ position: LogPosition; keyId: string; userId: string | null; costNanoUsd: bigint }>;
  /** When > 0, that many next addSpend calls reject (before applying anything). */
  failNext: number;
}

/** Creates an empty store. */
export function createFakeSpendStore(): FakeSpendStore {
  const memory = createMemoryStateStore();
  const store: FakeSpendStore = {
    calls: [],
    failNext: 0,
    async addSpend(position, keyId, userId, costNanoUsd) {
      store.calls.push({ position, keyId, userId, costNanoUsd });
      if (store.failNext > 0) {
        store.failNext -= 1;
        throw new Error('state store unavailable');
      }
      return memory.addSpend(position, keyId, userId, costNanoUsd);
    },
    getSpend: (keyId, userId) => memory.getSpend(keyId, userId),
  };
  return store;
}
