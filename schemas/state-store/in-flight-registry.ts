/**
 * The in-flight registry port: how many requests each gateway node has in flight per channel, so
 * that least-busy routing can count the whole fleet. Adapters: Redis (shared by every node using
 * the Redis; infra/state-store/redis/redis-in-flight-registry.ts) and in-process memory (shared by
 * the nodes of one process that share the memory state store; memory-in-flight-registry.ts).
 *
 * Each node publishes its own counts under its node id with a time to live; a node that stops
 * publishing (a crash, a lost network) is forgotten once its TTL has passed, without anyone
 * cleaning up after it. Publishing and reading the other live nodes' sum are one call (one round
 * trip on Redis), made by each node in the background (gateway/routing/in-flight-board.ts), never
 * on the request path.
 *
 * Outage: while its engine cannot answer in time, an adapter rejects with
 * StateStoreUnavailableError (state-store-unavailable.ts) within its deadline; the memory adapter
 * never does.
 */

/** In-flight requests per channel id (channels absent: 0). */
export type InFlightCounts = ReadonlyMap<string, number>;

/** The registry. Times in ms; node ids and channel ids are non-empty strings used verbatim. */
export interface InFlightRegistry {
  /**
   * Replaces the counts `nodeId` published before by `counts` (its in-flight requests per
   * channel), live until `ttlMs` after this call, and returns the sum per channel of every OTHER
   * node whose counts are still live (channels with a sum of 0 are left out). Nodes whose TTL has
   * passed are forgotten here. One round trip. `nowMs` (ms since epoch) is for tests: by default
   * the Redis adapter uses the Redis server's clock (one clock for every node), the memory adapter
   * its own clock.
   * @throws RangeError (before anything changes) on an empty node or channel id, a count that is
   *   not a non-negative safe integer, or a TTL that is not a positive safe integer of ms
   */
  publishAndReadOthers(
    nodeId: string,
    counts: InFlightCounts,
    ttlMs: number,
    nowMs?: number,
  ): Promise<Map<string, number>>;
  /**
   * Forgets `nodeId`'s counts at once (a node that stops cleanly), instead of after its TTL.
   * @throws RangeError on an empty node id
   */
  withdraw(nodeId: string): Promise<void>;
  /** Releases the adapter's connection (the memory adapter holds none). */
  close(): Promise<void>;
}

/**
 * The input checks both adapters apply, so that they refuse the same calls.
 * @throws RangeError on an empty node or channel id, a count that is not a non-negative safe
 *   integer, or a TTL that is not a positive safe integer of ms
 */
export function assertInFlightPublication(nodeId: string, counts: InFlightCounts, ttlMs: number): void {
  assertNodeId(nodeId);
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`in-flight TTL must be a positive whole number of ms, got ${String(ttlMs)}`);
  for (const [channelId, count] of counts) {
    if (typeof channelId !== 'string' || channelId === '')
      throw new RangeError('in-flight counts need non-empty channel ids');
    if (!Number.isSafeInteger(count) || count < 0)
      throw new RangeError(
        `in-flight count of channel ${channelId} must be a non-negative whole number, got ${String(count)}`,
      );
  }
}

/** @throws RangeError on an empty node id */
export function assertNodeId(nodeId: string): void {
  if (typeof nodeId !== 'string' || nodeId === '') throw new RangeError('an in-flight node id must be non-empty');
}

/** Adds `counts` into `sums` (per channel), leaving zeros out; returns `sums`. */
export function addInFlightCounts(
  sums: Map<string, number>,
  counts: Iterable<readonly [string, number]>,
): Map<string, number> {
  for (const [channelId, count] of counts) {
    if (count > 0) sums.set(channelId, (sums.get(channelId) ?? 0) + count);
  }
  return sums;
}
