/**
 * The Lua scripts of the Redis budget ledger (redis-budget-ledger.ts; key layout: REDIS-KEYS.md).
 * Every counter `<budgetId>@<windowStartMs>` has three keys under one hash tag
 * `{budget:<counterId>}`, passed to a script as a triple of KEYS:
 *   1. the counter hash: `spent` (nano-USD), `tokens`, `w:<topic>:<partition>` (watermark: the
 *      highest offset added), `a:<percent>` (alert published);
 *   2. the holds hash: `h:<requestId>` → `"<nanoUsd>:<tokens>:<holdUntilMs>"`, and the sums of
 *      the holds `n` (nano-USD) and `t` (tokens);
 *   3. the expiries sorted set: member = request id, score = its hold's holdUntilMs.
 * Ended holds (holdUntilMs ≤ now) are dropped at the start of every script that reads the holds:
 * ZRANGEBYSCORE on the expiries finds exactly them, so a call costs O(ended holds + claims), never
 * O(all holds).
 *
 * Money never passes through Lua numbers (IEEE doubles, exact only below 2^53): amounts travel as
 * decimal strings, are stored with HINCRBY (Redis parses them as signed 64-bit integers, exactly),
 * and are added and compared in Lua as decimal strings, digit by digit (`dadd`, `dge`), which is
 * exact at any size. A script checks that no sum would pass 2^63 − 1 nano-USD (or 2^53 − 1 tokens,
 * read back exactly in JavaScript) before it writes anything, and then answers with the error
 * `ERR budget … would pass its 64-bit range` (Redis does not roll a script back, so the check comes
 * first). Offsets and times are Lua numbers: exact below 2^53 (offsetOf guarantees it for offsets,
 * the adapter checks times are safe integers).
 */

/** Shared helpers: decimal arithmetic, the purge of ended holds, a counter's use, the TTL. */
const BUDGET_LUA_PRELUDE = `
local MAX_NANO = '9223372036854775807'
local MAX_TOKENS = '9007199254740991'
local function dadd(a, b)
  local digits, carry, i, j = {}, 0, #a, #b
  while i > 0 or j > 0 or carry > 0 do
    local s = carry
    if i > 0 then s = s + string.byte(a, i) - 48 end
    if j > 0 then s = s + string.byte(b, j) - 48 end
    digits[#digits + 1] = s % 10
    carry = (s - s % 10) / 10
    i, j = i - 1, j - 1
  end
  local out = {}
  for k = #digits, 1, -1 do out[#out + 1] = string.char(48 + digits[k]) end
  local text = table.concat(out):gsub('^0+', '')
  if text == '' then return '0' end
  return text
end
local function dge(a, b)
  if #a ~= #b then return #a > #b end
  for k = 1, #a do
    local x, y = string.byte(a, k), string.byte(b, k)
    if x ~= y then return x > y end
  end
  return true
end
local function dgt(a, b) return not dge(b, a) end
local function parseHold(text)
  local n, t = string.match(text, '^(%d+):(%d+):')
  return n, t
end
local function addHeld(holds, n, t, sign)
  if n ~= '0' then redis.call('HINCRBY', holds, 'n', sign .. n) end
  if t ~= '0' then redis.call('HINCRBY', holds, 't', sign .. t) end
end
local function purge(holds, expiries, now)
  local ended = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
  for _, id in ipairs(ended) do
    local hold = redis.call('HGET', holds, 'h:' .. id)
    if hold then
      local n, t = parseHold(hold)
      addHeld(holds, n, t, '-')
      redis.call('HDEL', holds, 'h:' .. id)
    end
  end
  if #ended > 0 then redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now) end
end
local function use(counter, holds, out)
  local v = redis.call('HMGET', counter, 'spent', 'tokens')
  local h = redis.call('HMGET', holds, 'n', 't')
  local alerts = {}
  for _, f in ipairs(redis.call('HKEYS', counter)) do
    if string.sub(f, 1, 2) == 'a:' then alerts[#alerts + 1] = string.sub(f, 3) end
  end
  out[#out + 1] = v[1] or '0'
  out[#out + 1] = v[2] or '0'
  out[#out + 1] = h[1] or '0'
  out[#out + 1] = h[2] or '0'
  out[#out + 1] = table.concat(alerts, ',')
  return out
end
local function keep(c, at)
  if at ~= '' then
    for k = 3 * c - 2, 3 * c do redis.call('PEXPIREAT', KEYS[k], at) end
  end
end
local function tooBig(what)
  return redis.error_reply('ERR budget ' .. what .. ' would pass its 64-bit range')
end
`;

/**
 * reserve. KEYS: a triple per claim (module doc). ARGV: requestId, holdUntilMs, nowMs, then per
 * claim 5 values: USD limit ('' = none), token limit ('' = none), nano-USD to hold, tokens to
 * hold, the counter's PEXPIREAT ms ('' = none). Drops ended holds; then, unless some claim's use
 * (spent + holds) has reached a limit, sets the request's hold in every counter (replacing one it
 * had). Returns `[refused, then per claim: previous hold ('' = none), spent, tokens, held nano-USD,
 * held tokens, alerted percents (comma-separated)]`, `refused` = the 1-based number of the first
 * claim at its limit (nothing held) or 0 (all held; the uses are after the holds).
 */
export const RESERVE_BUDGET_LUA = `${BUDGET_LUA_PRELUDE}
local rid, untilMs, now = ARGV[1], ARGV[2], ARGV[3]
local claims = #KEYS / 3
for c = 1, claims do purge(KEYS[3 * c - 1], KEYS[3 * c], now) end
local refused = 0
for c = 1, claims do
  local a = 3 + 5 * (c - 1)
  local u = use(KEYS[3 * c - 2], KEYS[3 * c - 1], {})
  local ln, lt = ARGV[a + 1], ARGV[a + 2]
  if (ln ~= '' and dge(dadd(u[1], u[3]), ln)) or (lt ~= '' and dge(dadd(u[2], u[4]), lt)) then
    refused = c
    break
  end
end
local previous = {}
if refused == 0 then
  for c = 1, claims do
    local a = 3 + 5 * (c - 1)
    local old = redis.call('HGET', KEYS[3 * c - 1], 'h:' .. rid)
    local on, ot = '0', '0'
    if old then on, ot = parseHold(old) end
    previous[c] = old or ''
    local h = redis.call('HMGET', KEYS[3 * c - 1], 'n', 't')
    if dgt(dadd(h[1] or '0', ARGV[a + 3]), dadd(MAX_NANO, on)) then return tooBig('holds') end
    if dgt(dadd(h[2] or '0', ARGV[a + 4]), dadd(MAX_TOKENS, ot)) then return tooBig('held tokens') end
  end
  for c = 1, claims do
    local a = 3 + 5 * (c - 1)
    local holds = KEYS[3 * c - 1]
    if previous[c] ~= '' then
      local on, ot = parseHold(previous[c])
      addHeld(holds, on, ot, '-')
    end
    redis.call('HSET', holds, 'h:' .. rid, ARGV[a + 3] .. ':' .. ARGV[a + 4] .. ':' .. untilMs)
    addHeld(holds, ARGV[a + 3], ARGV[a + 4], '')
    redis.call('ZADD', KEYS[3 * c], untilMs, rid)
    keep(c, ARGV[a + 5])
  end
end
local out = {refused}
for c = 1, claims do
  out[#out + 1] = previous[c] or ''
  use(KEYS[3 * c - 2], KEYS[3 * c - 1], out)
end
return out
`;

/**
 * Takes back one counter's hold set by a reservation that another slot refused (Redis Cluster).
 * KEYS: one counter's triple. ARGV: requestId, the hold the reservation set (`"<n>:<t>:<until>"`),
 * the hold it replaced ('' = none). When the request's hold is still the one set, it is replaced
 * by the previous one again (or dropped); otherwise (settled or replaced since) nothing changes.
 * Returns 1 when it restored, 0 otherwise.
 */
export const RELEASE_BUDGET_HOLD_LUA = `${BUDGET_LUA_PRELUDE}
local rid, set, previous = ARGV[1], ARGV[2], ARGV[3]
local holds, expiries = KEYS[2], KEYS[3]
if redis.call('HGET', holds, 'h:' .. rid) ~= set then return 0 end
local n, t = parseHold(set)
addHeld(holds, n, t, '-')
if previous == '' then
  redis.call('HDEL', holds, 'h:' .. rid)
  redis.call('ZREM', expiries, rid)
else
  local pn, pt = parseHold(previous)
  redis.call('HSET', holds, 'h:' .. rid, previous)
  addHeld(holds, pn, pt, '')
  redis.call('ZADD', expiries, string.match(previous, ':(%-?%d+)$'), rid)
end
return 1
`;

/**
 * settle. KEYS: a triple per counter. ARGV: requestId, nano-USD, tokens, holdUntilMs, nowMs, then
 * per counter its PEXPIREAT ms ('' = none). Drops ended holds; then replaces the request's hold in
 * each counter where it has one by (nano-USD, tokens, holdUntilMs). Returns how many it replaced.
 */
export const SETTLE_BUDGET_LUA = `${BUDGET_LUA_PRELUDE}
local rid, nano, tokens, untilMs, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local counters = #KEYS / 3
local previous = {}
for c = 1, counters do
  local holds = KEYS[3 * c - 1]
  purge(holds, KEYS[3 * c], now)
  previous[c] = redis.call('HGET', holds, 'h:' .. rid)
  if previous[c] then
    local on, ot = parseHold(previous[c])
    local h = redis.call('HMGET', holds, 'n', 't')
    if dgt(dadd(h[1] or '0', nano), dadd(MAX_NANO, on)) then return tooBig('holds') end
    if dgt(dadd(h[2] or '0', tokens), dadd(MAX_TOKENS, ot)) then return tooBig('held tokens') end
  end
end
local replaced = 0
for c = 1, counters do
  if previous[c] then
    local holds = KEYS[3 * c - 1]
    local on, ot = parseHold(previous[c])
    addHeld(holds, on, ot, '-')
    redis.call('HSET', holds, 'h:' .. rid, nano .. ':' .. tokens .. ':' .. untilMs)
    addHeld(holds, nano, tokens, '')
    redis.call('ZADD', KEYS[3 * c], untilMs, rid)
    keep(c, ARGV[5 + c])
    replaced = replaced + 1
  end
end
return replaced
`;

/**
 * addBudgetSpendBatch over the counters of one call (all of a batch's counters on a single Redis,
 * one counter per call on a Redis Cluster). KEYS: a triple per counter. ARGV: the watermark field
 * `w:<topic>:<partition>`, nowMs, per counter its PEXPIREAT ms ('' = none), then per increment in
 * offset order 5 values: offset, the 1-based number of its counter, requestId, nano-USD, tokens.
 * An increment is added when its offset is past its counter's watermark (as read at the start: a
 * counter's increments have increasing offsets); each drops its request's hold in its counter
 * either way; each counter's watermark moves to its last increment added. Nothing is written when
 * a counter would pass its range. Returns per counter: spent, tokens, held nano-USD, held tokens,
 * alerted percents.
 */
export const ADD_BUDGET_SPEND_LUA = `${BUDGET_LUA_PRELUDE}
local field, now = ARGV[1], ARGV[2]
local counters = #KEYS / 3
local first = 3 + counters
local marks, spent, tokens, moved = {}, {}, {}, {}
for c = 1, counters do
  purge(KEYS[3 * c - 1], KEYS[3 * c], now)
  local v = redis.call('HMGET', KEYS[3 * c - 2], field, 'spent', 'tokens')
  marks[c] = v[1] and tonumber(v[1]) or -1
  spent[c] = v[2] or '0'
  tokens[c] = v[3] or '0'
end
local fresh = {}
for i = first, #ARGV, 5 do
  local c = tonumber(ARGV[i + 1])
  if tonumber(ARGV[i]) > marks[c] then
    fresh[i] = true
    spent[c] = dadd(spent[c], ARGV[i + 3])
    tokens[c] = dadd(tokens[c], ARGV[i + 4])
    if dgt(spent[c], MAX_NANO) then return tooBig('counter') end
    if dgt(tokens[c], MAX_TOKENS) then return tooBig('counter tokens') end
  end
end
for i = first, #ARGV, 5 do
  local c = tonumber(ARGV[i + 1])
  local holds, rid = KEYS[3 * c - 1], ARGV[i + 2]
  local hold = redis.call('HGET', holds, 'h:' .. rid)
  if hold then
    local n, t = parseHold(hold)
    addHeld(holds, n, t, '-')
    redis.call('HDEL', holds, 'h:' .. rid)
    redis.call('ZREM', KEYS[3 * c], rid)
  end
  if fresh[i] then
    if ARGV[i + 3] ~= '0' then redis.call('HINCRBY', KEYS[3 * c - 2], 'spent', ARGV[i + 3]) end
    if ARGV[i + 4] ~= '0' then redis.call('HINCRBY', KEYS[3 * c - 2], 'tokens', ARGV[i + 4]) end
    moved[c] = ARGV[i]
  end
end
local out = {}
for c = 1, counters do
  if moved[c] then redis.call('HSET', KEYS[3 * c - 2], field, moved[c]) end
  keep(c, ARGV[2 + c])
  use(KEYS[3 * c - 2], KEYS[3 * c - 1], out)
end
return out
`;

/**
 * readBudgetUse. KEYS: a triple per counter. ARGV: nowMs. Drops ended holds, then returns per
 * counter: spent, tokens, held nano-USD, held tokens, alerted percents.
 */
export const READ_BUDGET_USE_LUA = `${BUDGET_LUA_PRELUDE}
local out = {}
for c = 1, #KEYS / 3 do
  purge(KEYS[3 * c - 1], KEYS[3 * c], ARGV[1])
  use(KEYS[3 * c - 2], KEYS[3 * c - 1], out)
end
return out
`;

/**
 * markThresholdAlerted. KEYS: one counter's triple. ARGV: the field `a:<percent>`, the counter's
 * PEXPIREAT ms ('' = none). Sets the field (1) and the counter hash's TTL. Returns 1.
 */
export const MARK_BUDGET_ALERTED_LUA = `
redis.call('HSET', KEYS[1], ARGV[1], '1')
if ARGV[2] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return 1
`;
