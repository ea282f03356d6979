-- Billing lines: one per UsageRecorded (a request a channel served), written by the billing
-- consumer, with the price it was billed at. ReplacingMergeTree keyed by event_id: read with FINAL.
-- Prices are USD per million tokens (9 decimals); priced = 0 when the price book had no entry
-- for upstream_model on channel_id at occurred_at (then cost_usd = 0 and the price columns are
-- empty / zero). day is the UTC date of occurred_at.
CREATE TABLE IF NOT EXISTS billing_lines
(
    event_id String,
    request_id String,
    occurred_at DateTime('UTC'),
    occurred_at_ms UInt64,
    day Date,
    key_id String,
    user_id String,
    model String,
    upstream_model String,
    channel_id String,
    provider String,
    input_tokens UInt64,
    cached_input_tokens UInt64,
    cache_write_tokens UInt64,
    output_tokens UInt64,
    reasoning_tokens UInt64,
    usage_source String,
    cost_usd Decimal64(9),
    price_model String,
    price_channel String,
    price_effective_from_ms UInt64,
    input_per_mtok Decimal64(9),
    output_per_mtok Decimal64(9),
    cache_read_per_mtok Decimal64(9),
    cache_write_per_mtok Decimal64(9),
    priced UInt8
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY event_id;
