/**
 * The Lua scripts of the Redis state store (key layout: REDIS-KEYS.md). Each write script first
 * compares the record's offset with its partition's applied-offset watermark and changes nothing
 * when the record is at or below it (a redelivery or a replay, at any age); otherwise it applies
 * the write and moves the watermark, in the same atomic script (addSpend moves it last). The health
 * script is a line-by-line transcription of `foldChannelHealth` (fold-channel-health.ts) — keep
 * the two in step. Numbers are written with `%.17g`, which round-trips IEEE doubles exactly, so
 * both adapters hold bit-identical EWMAs. Spend amounts never pass through Lua numbers: INCRBY
 * parses the decimal string as a signed 64-bit integer.
 */

/**
 * addSpend and addSpendBatch. KEYS: the spend watermark of the partition, then every counter the
 * batch touches (each once). ARGV: per increment, in offset order, 4 values: offset (decimal),
 * increment (nano-USD ≥ 0, decimal string), the KEYS index of the key counter, the KEYS index of
 * the user counter (0 = none). Increments at or below the watermark are skipped; the others are
 * added in order. Returns how many were applied. When a counter would overflow 64 bits, that
 * increment is undone (its key increment if its user increment failed), the watermark is set to
 * the last increment applied before it, and the error is returned: Redis does not roll a script
 * back, hence the explicit order.
 */
export const ADD_SPEND_LUA = `
local applied = redis.call('GET', KEYS[1])
local watermark = applied and tonumber(applied) or -1
local watermarkText = nil
local count = 0
for i = 1, #ARGV, 4 do
  if tonumber(ARGV[i]) > watermark then
    local keyIndex, userIndex = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
    local failure = nil
    local key = redis.pcall('INCRBY', KEYS[keyIndex], ARGV[i + 1])
    if type(key) == 'table' and key.err then failure = key end
    if not failure and userIndex > 0 then
      local user = redis.pcall('INCRBY', KEYS[userIndex], ARGV[i + 1])
      if type(user) == 'table' and user.err then
        redis.call('DECRBY', KEYS[keyIndex], ARGV[i + 1])
        failure = user
      end
    end
    if failure then
      if watermarkText then redis.call('SET', KEYS[1], watermarkText) end
      return failure
    end
    watermark = tonumber(ARGV[i])
    watermarkText = ARGV[i]
    count = count + 1
  end
end
if watermarkText then redis.call('SET', KEYS[1], watermarkText) end
return count
`;

/**
 * recordChannelObservation. KEYS: health watermark of the partition, state hash, ok zset, fail zset.
 * ARGV: offset (decimal), eventId, at (ms), ok ('1'|'0'), latencyMs, errorKind ('' = none),
 * retryAfterMs ('0' = none), windowMs, failureThreshold, cooldownMs, latencyAlpha, state TTL (ms).
 * Returns 1 when applied, 0 when the watermark is already at or past the offset.
 */
export const RECORD_OBSERVATION_LUA = `
local applied = redis.call('GET', KEYS[1])
if applied and tonumber(applied) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
local at = tonumber(ARGV[3])
local ok = ARGV[4] == '1'
local latency = tonumber(ARGV[5])
local errorKind = ARGV[6]
local retryAfterMs = tonumber(ARGV[7])
local windowMs = tonumber(ARGV[8])
local threshold = tonumber(ARGV[9])
local cooldownMs = tonumber(ARGV[10])
local alpha = tonumber(ARGV[11])
local s = redis.call('HMGET', KEYS[2], 'latencyEwmaMs', 'consecutiveFailures', 'failureCooldownUntil', 'retryAfterUntil', 'lastAt', 'lastSuccessAt', 'lastFailureAt')
local ewma = tonumber(s[1]) or 0
local consecutive = tonumber(s[2]) or 0
local failureUntil = tonumber(s[3]) or 0
local retryUntil = tonumber(s[4]) or 0
local lastAt = tonumber(s[5]) or 0
local lastSuccessAt = tonumber(s[6]) or 0
local lastFailureAt = tonumber(s[7]) or 0
if retryAfterMs > 0 then retryUntil = math.max(retryUntil, at + retryAfterMs) end
if ok then
  if at >= lastAt and errorKind == '' then
    if ewma == 0 then ewma = latency else ewma = alpha * latency + (1 - alpha) * ewma end
  end
  lastSuccessAt = math.max(lastSuccessAt, at)
  if at >= lastFailureAt then
    consecutive = 0
    failureUntil = 0
    lastFailureAt = 0
  end
elseif at > lastSuccessAt then
  consecutive = consecutive + 1
  lastFailureAt = math.max(lastFailureAt, at)
  if consecutive >= threshold then failureUntil = math.max(failureUntil, lastFailureAt + cooldownMs) end
end
lastAt = math.max(lastAt, at)
local f = '%.17g'
redis.call('HSET', KEYS[2], 'latencyEwmaMs', string.format(f, ewma), 'consecutiveFailures', string.format(f, consecutive),
  'failureCooldownUntil', string.format(f, failureUntil), 'retryAfterUntil', string.format(f, retryUntil),
  'lastAt', string.format(f, lastAt), 'lastSuccessAt', string.format(f, lastSuccessAt), 'lastFailureAt', string.format(f, lastFailureAt), 'windowMs', ARGV[8])
redis.call('PEXPIRE', KEYS[2], ARGV[12])
redis.call('ZADD', ok and KEYS[3] or KEYS[4], ARGV[3], ARGV[2])
local cutoff = string.format(f, at - windowMs)
for i = 3, 4 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', cutoff)
  redis.call('PEXPIRE', KEYS[i], string.format(f, 2 * windowMs))
end
return 1
`;

/**
 * getChannelHealth. KEYS: per channel its state hash, ok zset, fail zset. ARGV: now (ms).
 * Returns per channel 7 entries: latencyEwmaMs, consecutiveFailures, failureCooldownUntil,
 * retryAfterUntil, lastAt (strings or nil), ok count, failure count (window `at > now - windowMs`).
 */
export const READ_HEALTH_LUA = `
local now = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS, 3 do
  local s = redis.call('HMGET', KEYS[i], 'latencyEwmaMs', 'consecutiveFailures', 'failureCooldownUntil', 'retryAfterUntil', 'lastAt', 'windowMs')
  local okCount, failCount = 0, 0
  if s[6] then
    local since = '(' .. string.format('%.17g', now - tonumber(s[6]))
    okCount = redis.call('ZCOUNT', KEYS[i + 1], since, '+inf')
    failCount = redis.call('ZCOUNT', KEYS[i + 2], since, '+inf')
  end
  for j = 1, 5 do out[#out + 1] = s[j] or '' end
  out[#out + 1] = okCount
  out[#out + 1] = failCount
end
return out
`;
