-- billing_lines re-created ordered for analysts: day first, then key, upstream model, channel,
-- time, and event_id last (002 ordered by the random event_id). The billing consumer's check for
-- lines already stored (a batch's days, keys, models, channels and time range) reads only the
-- granules of those groups and times. Still a ReplacingMergeTree read with FINAL: every sorting
-- column is a field of the UsageRecorded event, so a redelivered event has the same sorting key
-- and replaces its own row. Every column carries a
-- COMMENT with its meaning and unit.
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/replacingmergetree
--
-- Same upgrade as 006 (drop a leftover billing_lines_005, create billing_lines_007, copy one row
-- per event_id with old FINAL, swap the names in one RENAME, drop the old table), with the same
-- contract: no billing consumer of an older version writing meanwhile, one migrator at a time.
-- The spend views of 003 read `billing_lines` by name at query time, so they follow the swap;
-- 008 replaces them, after this swap, because a materialized view follows the table it was
-- created on, not its name.
DROP TABLE IF EXISTS billing_lines_005;

CREATE TABLE IF NOT EXISTS billing_lines_007
(
    event_id String COMMENT 'UsageRecorded event id, unique per event: the deduplication key',
    request_id String COMMENT 'Request id, shared with consumption_log and failovers',
    occurred_at DateTime('UTC') COMMENT 'When the request finished, UTC, whole seconds',
    occurred_at_ms UInt64 COMMENT 'When the request finished, ms since epoch (UTC)',
    day Date COMMENT 'UTC date of occurred_at',
    key_id String COMMENT 'API key id (never the key itself)',
    user_id String COMMENT 'User who owns the key, empty when the key belongs to no user',
    model String COMMENT 'Model as the client asked for it',
    upstream_model String COMMENT 'Model the upstream served (after the channel model map): what prices apply to',
    channel_id String COMMENT 'Channel that served the request',
    provider String COMMENT 'Provider of channel_id',
    input_tokens UInt64 COMMENT 'Input tokens, cached_input_tokens included (tokens)',
    cached_input_tokens UInt64 COMMENT 'Input tokens read from the provider cache (tokens)',
    cache_write_tokens UInt64 COMMENT 'Input tokens written to the provider cache (tokens)',
    output_tokens UInt64 COMMENT 'Output tokens, reasoning_tokens included (tokens)',
    reasoning_tokens UInt64 COMMENT 'Reasoning tokens (tokens)',
    usage_source String COMMENT 'Where the token counts came from: reported, estimated or partial',
    cost_usd Decimal64(9) COMMENT 'Billed cost in USD, exact to 9 decimals (nano-USD), 0 when unpriced',
    price_model String COMMENT 'Model of the price entry used, empty when unpriced',
    price_channel String COMMENT 'Channel of the price entry used, empty for an every-channel entry or when unpriced',
    price_effective_from_ms UInt64 COMMENT 'When the price entry used took effect, ms since epoch, 0 when unpriced',
    input_per_mtok Decimal64(9) COMMENT 'Input price used, USD per million tokens, 0 when unpriced',
    output_per_mtok Decimal64(9) COMMENT 'Output price used, USD per million tokens, 0 when unpriced',
    cache_read_per_mtok Decimal64(9) COMMENT 'Cache-read price used, USD per million tokens, 0 when unpriced',
    cache_write_per_mtok Decimal64(9) COMMENT 'Cache-write price used, USD per million tokens, 0 when unpriced',
    priced UInt8 COMMENT '1 when a price applied, 0 when none did (cost_usd is then 0)'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, key_id, upstream_model, channel_id, occurred_at, event_id);

INSERT INTO billing_lines_007
    (event_id, request_id, occurred_at, occurred_at_ms, day, key_id, user_id, model, upstream_model, channel_id, provider,
     input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, usage_source, cost_usd,
     price_model, price_channel, price_effective_from_ms, input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_per_mtok, priced)
SELECT event_id, request_id, occurred_at, occurred_at_ms, day, key_id, user_id, model, upstream_model, channel_id, provider,
     input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, usage_source, cost_usd,
     price_model, price_channel, price_effective_from_ms, input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_per_mtok, priced
FROM billing_lines FINAL;

RENAME TABLE billing_lines TO billing_lines_005, billing_lines_007 TO billing_lines;

DROP TABLE IF EXISTS billing_lines_005;
