/**
 * The Lua scripts of the Redis in-flight registry (redis-in-flight-registry.ts; key layout:
 * REDIS-KEYS.md). Both keys of each script share the hash tag `{in-flight}` and are passed in
 * KEYS, so each script runs on one slot of a Redis Cluster. Numbers are written with `%.17g`
 * (exact for integers of ms since epoch).
 */

/**
 * KEYS: the counts hash, the expiries sorted set. ARGV: node id, its counts as JSON ('' = none
 * in flight), TTL (ms), now (ms since epoch; '' = the server's clock, TIME). A node is live while
 * its expiry is after now. Returns the other live nodes' JSON values.
 */
export const PUBLISH_IN_FLIGHT_LUA = `
local now
if ARGV[4] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[4])
end
local f = '%.17g'
local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', string.format(f, now))
for _, node in ipairs(dead) do redis.call('HDEL', KEYS[1], node) end
if #dead > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format(f, now)) end
redis.call('ZADD', KEYS[2], string.format(f, now + tonumber(ARGV[3])), ARGV[1])
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local keep = string.format(f, math.max(1, math.ceil(tonumber(last[2]) - now)))
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('PEXPIRE', KEYS[2], keep)
local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  if all[i] ~= ARGV[1] then out[#out + 1] = all[i + 1] end
end
return out
`;

/** KEYS: the counts hash, the expiries sorted set. ARGV: node id. Forgets the node. Returns 1. */
export const WITHDRAW_IN_FLIGHT_LUA = `
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;
