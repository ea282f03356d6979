/**
 * The in-process in-flight registry (embedded mode, no REDIS_URL; contract:
 * schemas/state-store/in-flight-registry.ts): each node's counts and the time they expire, in a
 * map. Nodes of one process see each other when they share one registry — the memory state store
 * carries one (`inFlight`, memory-state-store.ts) for that. Never rejects for I/O reasons.
 * Nothing of it is snapshotted: in-flight counts mean nothing after a restart.
 */
import {
  addInFlightCounts,
  assertInFlightPublication,
  assertNodeId,
  type InFlightRegistry,
} from '../../../schemas/state-store/in-flight-registry.ts';

/** Options of the memory registry; `clock` returns ms since epoch (default Date.now). */
export interface MemoryInFlightRegistryOptions {
  readonly clock?: () => number;
}

/** One node's published counts, live while `expiresAt` (ms since epoch) is after now. */
interface NodeCounts {
  readonly counts: ReadonlyArray<readonly [string, number]>;
  readonly expiresAt: number;
}

/**
 * An InFlightRegistry in process memory. A node is live while `now < expiresAt` (the same bound
 * as the Redis adapter's); expired nodes are dropped on every publication.
 * @throws RangeError (from publishAndReadOthers, withdraw) on the inputs the port refuses
 */
export function createMemoryInFlightRegistry(options: MemoryInFlightRegistryOptions = {}): InFlightRegistry {
  const clock = options.clock ?? Date.now;
  const nodes = new Map<string, NodeCounts>();

  return {
    async publishAndReadOthers(nodeId, counts, ttlMs, nowMs) {
      assertInFlightPublication(nodeId, counts, ttlMs);
      const now = nowMs ?? clock();
      for (const [id, node] of nodes) if (node.expiresAt <= now) nodes.delete(id);
      nodes.set(nodeId, { counts: [...counts].filter(([, count]) => count > 0), expiresAt: now + ttlMs });
      const sums = new Map<string, number>();
      for (const [id, node] of nodes) if (id !== nodeId) addInFlightCounts(sums, node.counts);
      return sums;
    },

    async withdraw(nodeId) {
      assertNodeId(nodeId);
      nodes.delete(nodeId);
    },

    async close(): Promise<void> {},
  };
}
