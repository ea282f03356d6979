/**
 * The key names of the Redis state store (REDIS-KEYS.md), for one prefix. Every key of one entity
 * (a key's spend counter, a user's, a channel's health) carries the same hash tag `{…}`, so the one
 * script that writes the entity runs on one slot of a Redis Cluster
 * (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/, "Hash tags"), and
 * different entities spread over all slots.
 */
import type { LogPosition } from '../../../schemas/state-store/state-store.ts';

/** The key names of one prefix; ids are used verbatim (see REDIS-KEYS.md on ids containing braces). */
export interface RedisStateKeys {
  /** nano-USD spent through the key (string, signed 64-bit). */
  readonly keySpend: (keyId: string) => string;
  /** The key counter's watermarks: hash `<topic>:<partition>` → highest offset applied to it. */
  readonly keySpendApplied: (keyId: string) => string;
  /** nano-USD spent by the user over all keys (string, signed 64-bit). */
  readonly userSpend: (userId: string) => string;
  /** The user counter's watermarks (as keySpendApplied). */
  readonly userSpendApplied: (userId: string) => string;
  readonly healthState: (channelId: string) => string;
  readonly healthOk: (channelId: string) => string;
  readonly healthFail: (channelId: string) => string;
  /** The channel's health watermarks: hash `<topic>:<partition>` → highest offset folded into it. */
  readonly healthApplied: (channelId: string) => string;
  /** The layout version marker (string `2` once the untagged layout was migrated or never existed). */
  readonly layoutVersion: string;
}

/** The key names of REDIS-KEYS.md under `prefix`. */
export function redisStateKeys(prefix: string): RedisStateKeys {
  return {
    keySpend: (keyId) => `${prefix}spend:{key:${keyId}}`,
    keySpendApplied: (keyId) => `${prefix}spend:{key:${keyId}}:applied`,
    userSpend: (userId) => `${prefix}spend:{user:${userId}}`,
    userSpendApplied: (userId) => `${prefix}spend:{user:${userId}}:applied`,
    healthState: (channelId) => `${prefix}health:{${channelId}}:state`,
    healthOk: (channelId) => `${prefix}health:{${channelId}}:ok`,
    healthFail: (channelId) => `${prefix}health:{${channelId}}:fail`,
    healthApplied: (channelId) => `${prefix}health:{${channelId}}:applied`,
    layoutVersion: `${prefix}layout`,
  };
}

/** The field of a partition in an applied hash: `<topic>:<partition>` (the partition follows the last `:`). */
export function appliedField(position: LogPosition): string {
  return `${position.topic}:${position.partition}`;
}
