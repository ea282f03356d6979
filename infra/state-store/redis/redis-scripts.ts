/**
 * The Lua scripts of the Redis state store (key layout: REDIS-KEYS.md). Each write script first
 * compares the record's offset with the watermark its entity (a spend counter, a channel) keeps
 * for the record's partition, and changes nothing when the record is at or below it (a
 * redelivery or a replay, at any age); otherwise it applies the write and moves that watermark, in
 * the same atomic script (addSpend moves it last). Every key of one script shares one hash tag, so
 * each script runs on one slot of a Redis Cluster. The health
 * script is a line-by-line transcription of `foldChannelHealth` (fold-channel-health.ts) — keep
 * the two in step. Numbers are written with `%.17g`, which round-trips IEEE doubles exactly, so
 * both adapters hold bit-identical EWMAs. Spend amounts never pass through Lua numbers: INCRBY
 * parses the decimal string as a signed 64-bit integer.
 */

/**
 * addSpend and addSpendBatch over the counters of one script call (all of a batch's counters on a
 * single Redis; one counter per call on a Redis Cluster, where each counter and its applied hash
 * share a hash tag). KEYS: per counter its value key, then its applied hash (field per partition
 * `<topic>:<partition>` → the highest offset applied to that counter). ARGV[1]: the partition's
 * field; then per record, in offset order, 4 values: offset (decimal), increment (nano-USD ≥ 0,
 * decimal string), the number (1-based) of its first counter, of its second counter (0 = none).
 * A record is added to each of its counters whose watermark is below its offset, all or nothing
 * within the call. Returns `{flags, before}`: per record 1 (applied to some counter) or 0 (a
 * redelivery or replay), and per counter its watermark as read before the call ('' when none).
 * When a counter would overflow 64 bits, that record's increments in this call are undone, every
 * counter's watermark is set to the last record applied to it, and the error is returned: Redis
 * does not roll a script back, hence the explicit order.
 */
export const ADD_SPEND_LUA = `
local field = ARGV[1]
local counters = #KEYS / 2
local marks, moved, before = {}, {}, {}
for c = 1, counters do
  local mark = redis.call('HGET', KEYS[2 * c], field)
  marks[c] = mark and tonumber(mark) or -1
  before[c] = mark or ''
end
local function flush()
  for c = 1, counters do
    if moved[c] then redis.call('HSET', KEYS[2 * c], field, moved[c]) end
  end
end
local out = {}
for i = 2, #ARGV, 4 do
  local offset = tonumber(ARGV[i])
  local fresh = {}
  for j = 2, 3 do
    local c = tonumber(ARGV[i + j])
    if c > 0 and offset > marks[c] then fresh[#fresh + 1] = c end
  end
  for k, c in ipairs(fresh) do
    local total = redis.pcall('INCRBY', KEYS[2 * c - 1], ARGV[i + 1])
    if type(total) == 'table' and total.err then
      for u = 1, k - 1 do redis.call('DECRBY', KEYS[2 * fresh[u] - 1], ARGV[i + 1]) end
      flush()
      return total
    end
  end
  for _, c in ipairs(fresh) do
    marks[c] = offset
    moved[c] = ARGV[i]
  end
  out[#out + 1] = #fresh > 0 and 1 or 0
end
flush()
return {out, before}
`;

/**
 * Takes back one record's increment from one counter (on a Redis Cluster, when the record's other
 * counter refused it). KEYS: the counter, its applied hash. ARGV: the partition's field, the
 * increment (nano-USD, decimal), the watermark to restore ('' = none). Returns 1.
 */
export const REVERT_SPEND_LUA = `
redis.call('DECRBY', KEYS[1], ARGV[2])
if ARGV[3] == '' then redis.call('HDEL', KEYS[2], ARGV[1]) else redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
return 1
`;

/**
 * recordChannelObservation. KEYS (one channel, one hash tag): its applied hash (field per partition
 * → the highest offset folded into this channel), state hash, ok zset, fail zset.
 * ARGV: offset (decimal), eventId, at (ms), ok ('1'|'0'), latencyMs, errorKind ('' = none),
 * retryAfterMs ('0' = none), windowMs, failureThreshold, cooldownMs, latencyAlpha, state TTL (ms),
 * the partition's field `<topic>:<partition>`, totalMs ('' = none). Both EWMAs fold as
 * `foldEwma` does (first sample sets it while 0, then `alpha * sample + (1 - alpha) * ewma`); a
 * state hash written before `totalLatencyEwmaMs` existed reads it as 0.
 * Returns 1 when applied, 0 when the channel's watermark of the partition is at or past the offset.
 */
export const RECORD_OBSERVATION_LUA = `
local applied = redis.call('HGET', KEYS[1], ARGV[13])
if applied and tonumber(applied) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[13], ARGV[1])
local at = tonumber(ARGV[3])
local ok = ARGV[4] == '1'
local latency = tonumber(ARGV[5])
local errorKind = ARGV[6]
local retryAfterMs = tonumber(ARGV[7])
local windowMs = tonumber(ARGV[8])
local threshold = tonumber(ARGV[9])
local cooldownMs = tonumber(ARGV[10])
local alpha = tonumber(ARGV[11])
local total = tonumber(ARGV[14])
local s = redis.call('HMGET', KEYS[2], 'latencyEwmaMs', 'consecutiveFailures', 'failureCooldownUntil', 'retryAfterUntil', 'lastAt', 'lastSuccessAt', 'lastFailureAt', 'totalLatencyEwmaMs')
local ewma = tonumber(s[1]) or 0
local consecutive = tonumber(s[2]) or 0
local failureUntil = tonumber(s[3]) or 0
local retryUntil = tonumber(s[4]) or 0
local lastAt = tonumber(s[5]) or 0
local lastSuccessAt = tonumber(s[6]) or 0
local lastFailureAt = tonumber(s[7]) or 0
local totalEwma = tonumber(s[8]) or 0
if retryAfterMs > 0 then retryUntil = math.max(retryUntil, at + retryAfterMs) end
if ok then
  if at >= lastAt and errorKind == '' then
    if ewma == 0 then ewma = latency else ewma = alpha * latency + (1 - alpha) * ewma end
    if total then
      if totalEwma == 0 then totalEwma = total else totalEwma = alpha * total + (1 - alpha) * totalEwma end
    end
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
  'lastAt', string.format(f, lastAt), 'lastSuccessAt', string.format(f, lastSuccessAt), 'lastFailureAt', string.format(f, lastFailureAt),
  'totalLatencyEwmaMs', string.format(f, totalEwma), 'windowMs', ARGV[8])
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
 * getChannelHealth. KEYS: per channel its state hash, ok zset, fail zset (all channels on a single
 * Redis; the channels of one hash tag on a Redis Cluster). ARGV: now (ms).
 * Returns per channel 8 entries: latencyEwmaMs, consecutiveFailures, failureCooldownUntil,
 * retryAfterUntil, lastAt, totalLatencyEwmaMs (strings, '' when absent), ok count, failure count
 * (window `at > now - windowMs`).
 */
export const READ_HEALTH_LUA = `
local now = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS, 3 do
  local s = redis.call('HMGET', KEYS[i], 'latencyEwmaMs', 'consecutiveFailures', 'failureCooldownUntil', 'retryAfterUntil', 'lastAt', 'totalLatencyEwmaMs', 'windowMs')
  local okCount, failCount = 0, 0
  if s[7] then
    local since = '(' .. string.format('%.17g', now - tonumber(s[7]))
    okCount = redis.call('ZCOUNT', KEYS[i + 1], since, '+inf')
    failCount = redis.call('ZCOUNT', KEYS[i + 2], since, '+inf')
  end
  for j = 1, 6 do out[#out + 1] = s[j] or '' end
  out[#out + 1] = okCount
  out[#out + 1] = failCount
end
return out
`;
