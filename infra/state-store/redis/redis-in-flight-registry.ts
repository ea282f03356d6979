/**
 * The Redis in-flight registry (used when REDIS_URL or REDIS_CLUSTER_NODES is set; contract:
 * schemas/state-store/in-flight-registry.ts). Two keys under one hash tag `{in-flight}`
 * (REDIS-KEYS.md), so that one Lua script reads and writes both on a single Redis and on a Redis
 * Cluster alike (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/,
 * "Hash tags"), with every key it touches passed in KEYS:
 *
 * - `<p>{in-flight}:counts` — hash: node id → that node's non-zero counts as JSON
 *   `[["<channelId>",<count>],…]`;
 * - `<p>{in-flight}:expiries` — sorted set: node id scored by the time its counts expire (ms since
 *   epoch, by the Redis server's clock).
 *
 * One call (PUBLISH_IN_FLIGHT_LUA, redis-in-flight-scripts.ts) drops the nodes whose expiry has passed (their field and
 * member), writes the caller's counts and expiry, and returns every other node's counts: one
 * round trip; this process sums them. Both keys expire when the longest-lived node's counts
 * would, so a fleet that stops leaves nothing behind. All nodes use this one slot, once per
 * refresh period each: a few calls per second, no hot spot worth spreading.
 */
import { z } from 'zod';
import {
  addInFlightCounts,
  assertInFlightPublication,
  assertNodeId,
  type InFlightRegistry,
} from '../../../schemas/state-store/in-flight-registry.ts';
import { openRedisAdapter, type RedisAdapterOptions } from './guarded-redis.ts';
import type { RedisClient } from './redis-connection.ts';
import { PUBLISH_IN_FLIGHT_LUA, WITHDRAW_IN_FLIGHT_LUA } from './redis-in-flight-scripts.ts';

/** Options of the Redis registry: the endpoint (`url` or `cluster`, redis-connection.ts), key prefix and outage behaviour (guarded-redis.ts). */
export type RedisInFlightRegistryOptions = RedisAdapterOptions;

/** Deadline of a publication, ms: it runs in the background, as the health read does. */
const PUBLISH_TIMEOUT_MS = 500;

/** The scripts ioredis defines on the client (EVALSHA with a transparent EVAL fallback). */
type ScriptedRedis = RedisClient & {
  tollgateInFlightPublish(numKeys: number, ...args: string[]): Promise<string[]>;
  tollgateInFlightWithdraw(numKeys: number, ...args: string[]): Promise<number>;
};

/** The registry's two keys (REDIS-KEYS.md), both under the hash tag `{in-flight}`. */
export interface InFlightRegistryKeys {
  /** hash: node id → JSON `[["<channelId>",<count>],…]` of its non-zero counts */
  readonly counts: string;
  /** sorted set: node id scored by the expiry of its counts, ms since epoch */
  readonly expiries: string;
}

/** The keys of the registry under `prefix`. */
export function inFlightRegistryKeys(prefix: string): InFlightRegistryKeys {
  return { counts: `${prefix}{in-flight}:counts`, expiries: `${prefix}{in-flight}:expiries` };
}

/** One node's stored value. */
const storedCounts = z.array(z.tuple([z.string().min(1), z.number().int().min(0)]));

/** A stored value → its [channel, count] pairs; a value this version cannot read counts as none. */
function parseStoredCounts(value: string): Array<[string, number]> {
  if (value === '') return [];
  try {
    const parsed = storedCounts.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * Connects to Redis or a Redis Cluster (reconnecting on its own) and returns the InFlightRegistry
 * over it (contract: in-flight-registry.ts). While Redis is unreachable or slow, calls reject with
 * StateStoreUnavailableError within max(500 ms, `outage.commandTimeoutMs`), and at once while the
 * circuit breaker is open (guarded-redis.ts).
 * @throws Error (at once) on a cluster when `keyPrefix` contains a brace
 */
export function createRedisInFlightRegistry(options: RedisInFlightRegistryOptions): InFlightRegistry {
  const { guarded, prefix } = openRedisAdapter<ScriptedRedis>(options, 'in-flight registry', { hashTagged: true });
  guarded.client.defineCommand('tollgateInFlightPublish', { lua: PUBLISH_IN_FLIGHT_LUA });
  guarded.client.defineCommand('tollgateInFlightWithdraw', { lua: WITHDRAW_IN_FLIGHT_LUA });
  const keys = inFlightRegistryKeys(prefix);
  const timeoutMs = Math.max(PUBLISH_TIMEOUT_MS, guarded.commandTimeoutMs);

  return {
    async publishAndReadOthers(nodeId, counts, ttlMs, nowMs) {
      assertInFlightPublication(nodeId, counts, ttlMs);
      const live = [...counts].filter(([, count]) => count > 0);
      const encoded = live.length === 0 ? '' : JSON.stringify(live);
      const now = nowMs === undefined ? '' : String(Math.floor(nowMs));
      const others = await guarded.run(
        (client) => client.tollgateInFlightPublish(2, keys.counts, keys.expiries, nodeId, encoded, String(ttlMs), now),
        timeoutMs,
      );
      const sums = new Map<string, number>();
      for (const value of others) addInFlightCounts(sums, parseStoredCounts(value));
      return sums;
    },

    async withdraw(nodeId) {
      assertNodeId(nodeId);
      await guarded.run((client) => client.tollgateInFlightWithdraw(2, keys.counts, keys.expiries, nodeId), timeoutMs);
    },

    close: () => guarded.close(),
  };
}
