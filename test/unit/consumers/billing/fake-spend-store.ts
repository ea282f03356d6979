/**
 * The billing tests' spend store: the real in-process state store, recording every addSpendBatch call
 * and able to make the next calls fail (before anything is applied).
 */
import { createMemoryStateStore } from '../../../../infra/state-store/memory/memory-state-store.ts';
import type { SpendIncrement, StateStore } from '../../../../schemas/state-store/state-store.ts';

/** The store, with what it has been asked. */
export interface FakeSpendStore extends Pick<StateStore, 'addSpendBatch' | 'getSpend'> {
  /** Every increment handed to addSpendBatch, duplicates included. */
  readonly calls: SpendIncrement[];
  /** When > 0, that many next addSpendBatch calls reject (before applying anything). */
  failNext: number;
}

/** Creates an empty store. */
export function createFakeSpendStore(): FakeSpendStore {
  const memory = createMemoryStateStore();
  const store: FakeSpendStore = {
    calls: [],
    failNext: 0,
    async addSpendBatch(increments) {
      store.calls.push(...increments);
      if (store.failNext > 0) {
        store.failNext -= 1;
        throw new Error('state store unavailable');
      }
      return memory.addSpendBatch(increments);
    },
    getSpend: (keyId, userId) => memory.getSpend(keyId, userId),
  };
  return store;
}
