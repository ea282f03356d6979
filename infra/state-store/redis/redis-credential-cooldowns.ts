/**
 * The Redis credential-cooldown store (REDIS_URL or REDIS_CLUSTER_NODES): one hash per channel,
 * `<p>cooldown:{channel:<channelId>}`, field = credential id, value `"<untilMs>:<reason>"`; the
 * hash expires when its last cooldown ends (PEXPIREAT). A write keeps a later-ending cooldown
 * (one Lua script, so two nodes marking the same credential at once keep the longer one). Key
 * layout: schemas/state-store/REDIS-KEYS.md.
 */
import {
  assertValidCooldown,
  parseStoredCooldown,
  type CredentialCooldown,
  type CredentialCooldownStore,
} from '../../../schemas/state-store/credential-cooldowns.ts';
import { openRedisAdapter, type RedisAdapterOptions } from './guarded-redis.ts';
import type { RedisClient } from './redis-connection.ts';

/** Options of the Redis credential-cooldown store: the endpoint, key prefix and outage behaviour (guarded-redis.ts). */
export type RedisCredentialCooldownsOptions = RedisAdapterOptions;

/** The hash of a channel's credential cooldowns: `<prefix>cooldown:{channel:<channelId>}`. */
export function redisCooldownKey(prefix: string, channelId: string): string {
  return `${prefix}cooldown:{channel:${channelId}}`;
}

/**
 * KEYS[1] the channel's hash; ARGV[1] credential id, ARGV[2] untilMs, ARGV[3] reason, ARGV[4] the
 * writer's clock (ms since epoch). Keeps a running cooldown that ends later; moves the hash's
 * expiry to the latest end of its fields (PTTL and PEXPIREAT: Redis ≥ 2.6).
 */
const MARK_COOLING_LUA = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
local untilMs = tonumber(ARGV[2])
if current then
  local running = tonumber(string.match(current, '^(%d+):'))
  if running and running >= untilMs then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 or tonumber(ARGV[4]) + ttl < untilMs then redis.call('PEXPIREAT', KEYS[1], untilMs) end
return 1
`;

/** The client with the script defined on it. */
type CooldownRedis = RedisClient & {
  tollgateMarkCooling(
    key: string,
    credentialId: string,
    untilMs: string,
    reason: string,
    nowMs: string,
  ): Promise<number>;
};

/**
 * Connects to Redis (reconnecting on its own) and returns the CredentialCooldownStore over it.
 * While Redis is unreachable or slower than the deadline (`outage`, default 100 ms) calls reject
 * with StateStoreUnavailableError (guarded-redis.ts).
 * @throws Error (at once) on a cluster when `keyPrefix` contains a brace
 */
export function createRedisCredentialCooldowns(options: RedisCredentialCooldownsOptions): CredentialCooldownStore {
  const { guarded, prefix } = openRedisAdapter<CooldownRedis>(options, 'credential cooldowns', { hashTagged: true });
  guarded.client.defineCommand('tollgateMarkCooling', { numberOfKeys: 1, lua: MARK_COOLING_LUA });
  return {
    async markCooling(cooldown) {
      assertValidCooldown(cooldown);
      await guarded.run((redis) =>
        redis.tollgateMarkCooling(
          redisCooldownKey(prefix, cooldown.channelId),
          cooldown.credentialId,
          String(cooldown.untilMs),
          cooldown.reason,
          String(Date.now()),
        ),
      );
    },
    async readCooling(channelIds, nowMs) {
      const hashes = await Promise.all(
        channelIds.map((channelId) => guarded.run((redis) => redis.hgetall(redisCooldownKey(prefix, channelId)))),
      );
      const cooling: CredentialCooldown[] = [];
      hashes.forEach((fields, index) => {
        const channelId = channelIds[index] as string;
        for (const [credentialId, value] of Object.entries(fields)) {
          const stored = parseStoredCooldown(value);
          if (stored && stored.untilMs > nowMs) cooling.push({ channelId, credentialId, ...stored });
        }
      });
      return cooling;
    },
    close: () => guarded.close(),
  };
}
