/**
 * The Lua scripts of the Redis rate limiter: a line-by-line transcription of gcra-rate-limit.ts
 * (parseTat, addUnits, chargeBase, decideAdmission's test, settledTat) — keep the two in step.
 * Every number is an integer below 2^53, so Lua's doubles compute exactly what JavaScript does;
 * integers are written with `%.0f` (Lua's tostring would print 1.7e+12).
 * Key layout: `<prefix>rl:{<scope>}:<kind>` → string `"<ms>:<r>:<limit>"` (see redis-rate-limiter.ts).
 */

/** Shared Lua helpers: the clock (ARGV[1], or Redis TIME when empty), parseTat and addUnits. */
const GCRA_LUA_PRELUDE = `
local W = 60000
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function parse(text, limit)
  if not text then return nil end
  local ms, r, l = string.match(text, '^(%-?%d+):(%d+):(%d+)$')
  if not ms then return nil end
  ms = tonumber(ms)
  r = tonumber(r)
  if tonumber(l) == limit then return ms, r end
  if r > 0 then ms = ms + 1 end
  return ms, 0
end
local function add(ms, r, units, limit)
  local total = r + units * W
  local carry = math.floor(total / limit)
  return ms + carry, total - carry * limit
end
local function store(key, ms, r, limit)
  redis.call('SET', key, string.format('%.0f:%.0f:%.0f', ms, r, limit), 'PX', string.format('%.0f', math.max(0, ms - now + 1) + W))
end
`;

/**
 * admit. KEYS: one per cell. ARGV: now (integer ms, or '' for the Redis server clock), then per
 * cell its limit and cost. All cells are charged or none. Returns
 * `[allowed (1|0), now ('%.0f'), stored state of each cell before the decision ('' when none)]`;
 * the caller recomputes the states with decideAdmission from exactly these inputs.
 */
export const ADMIT_LUA = `${GCRA_LUA_PRELUDE}
local out = {0, string.format('%.0f', now)}
local allowed = 1
local nextMs, nextR = {}, {}
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  local cost = tonumber(ARGV[2 * i + 1])
  local raw = redis.call('GET', KEYS[i])
  out[#out + 1] = raw or ''
  local ms, r = parse(raw, limit)
  if not ms or ms < now then ms, r = now, 0 end
  if limit == 0 or cost > limit then
    allowed = 0
  else
    nextMs[i], nextR[i] = add(ms, r, cost, limit)
    if (nextMs[i] - now) * limit + nextR[i] - W * limit > 0 then allowed = 0 end
  end
end
if allowed == 1 then
  for i = 1, #KEYS do store(KEYS[i], nextMs[i], nextR[i], tonumber(ARGV[2 * i])) end
end
out[1] = allowed
return out
`;

/**
 * settle. KEYS: one per tokens cell. ARGV: now (integer ms, or ''), then per cell its limit and
 * delta (actual − reserved tokens, may be negative). Mirrors settledTat. Returns the number of
 * cells written.
 */
export const SETTLE_LUA = `${GCRA_LUA_PRELUDE}
local written = 0
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  local delta = tonumber(ARGV[2 * i + 1])
  if limit > 0 and delta ~= 0 then
    local ms, r = parse(redis.call('GET', KEYS[i]), limit)
    if delta > 0 then
      if not ms or ms < now then ms, r = now, 0 end
      ms, r = add(ms, r, delta, limit)
    else
      if not ms then ms, r = now, 0 end
      ms, r = add(ms, r, delta, limit)
      if ms < now then ms, r = now, 0 end
    end
    store(KEYS[i], ms, r, limit)
    written = written + 1
  end
end
return written
`;
