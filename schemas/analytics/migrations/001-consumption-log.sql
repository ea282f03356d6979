-- The consumption log: one row per client request (RequestCompleted), written by the ledger
-- consumer. ReplacingMergeTree keyed by event_id, so a redelivered or replayed event replaces its
-- own row: read with FINAL. Times: occurred_at (seconds, UTC) for partitions and dates,
-- occurred_at_ms for precision. Money: cost_usd in USD with 9 decimals (exact nano-USD).
-- Empty string where the event had no value (user_id, upstream_model, channel_id, provider,
-- error_kind); ttfb_ms is NULL when nothing was sent to the client.
CREATE TABLE IF NOT EXISTS consumption_log
(
    event_id String,
    request_id String,
    occurred_at DateTime('UTC'),
    occurred_at_ms UInt64,
    key_id String,
    user_id String,
    model String,
    upstream_model String,
    channel_id String,
    provider String,
    client_format String,
    stream UInt8,
    pass_through UInt8,
    status String,
    error_kind String,
    http_status UInt16,
    input_tokens UInt64,
    cached_input_tokens UInt64,
    cache_write_tokens UInt64,
    output_tokens UInt64,
    reasoning_tokens UInt64,
    usage_source String,
    cost_usd Decimal64(9),
    latency_ms UInt64,
    ttfb_ms Nullable(UInt64),
    attempts UInt16
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(occurred_at)
ORDER BY event_id;
