/**
 * A minimal in-memory spend store for the billing tests: addSpend/getSpend of the StateStore
 * port, idempotent by event id, with a switch to make the next calls fail.
 */
import type { SpendTotals, StateStore } from '../../../../schemas/state-store/state-store.ts';

/** The fake, with what it has seen. */
export interface FakeSpendStore extends Pick<StateStore, 'addSpend' | 'getSpend'> {
  /** Every addSpend call, duplicates included. */
  readonly calls: Array<{ eventId: string; keyId: string; userId: string | null; costNanoUsd: bigint }>;
  /** When > 0, that many next addSpend calls reject (before applying anything). */
  failNext: number;
}

/** Creates an empty fake. */
export function createFakeSpendStore(): FakeSpendStore {
  const applied = new Set<string>();
  const byKey = new Map<string, bigint>();
  const byUser = new Map<string, bigint>();
  const store: FakeSpendStore = {
    calls: [],
    failNext: 0,
    async addSpend(eventId, keyId, userId, costNanoUsd) {
      store.calls.push({ eventId, keyId, userId, costNanoUsd });
      if (store.failNext > 0) {
        store.failNext -= 1;
        throw new Error('state store unavailable');
      }
      if (applied.has(eventId)) return false;
      applied.add(eventId);
      byKey.set(keyId, (byKey.get(keyId) ?? 0n) + costNanoUsd);
      if (userId !== null) byUser.set(userId, (byUser.get(userId) ?? 0n) + costNanoUsd);
      return true;
    },
    async getSpend(keyId, userId): Promise<SpendTotals> {
      return { keyNanoUsd: byKey.get(keyId) ?? 0n, userNanoUsd: userId === null ? 0n : (byUser.get(userId) ?? 0n) };
    },
  };
  return store;
}
