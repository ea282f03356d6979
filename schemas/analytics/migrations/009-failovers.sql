-- Failovers: one row per FailoverOccurred event (topic tollgate.failovers: a channel failed and the
-- router moved on, or gave up), projected by consumers/failovers/project-failover-row.ts.
-- ReplacingMergeTree ordered by day, channel, event_id: every sorting-key column is a field of the
-- event, so a redelivered event replaces its own row; read with FINAL. Analysts compare it with
-- consumption_log per channel and day (README, For analysts: failover rate per channel).
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/replacingmergetree
CREATE TABLE IF NOT EXISTS failovers
(
    event_id String COMMENT 'FailoverOccurred event id, unique per event: the deduplication key',
    request_id String COMMENT 'Request id, shared with consumption_log and billing_lines',
    occurred_at DateTime('UTC') COMMENT 'When the request finished (the failover was reported), UTC, whole seconds',
    occurred_at_ms UInt64 COMMENT 'When the request finished (the failover was reported), ms since epoch (UTC)',
    day Date COMMENT 'UTC date of occurred_at',
    key_id String COMMENT 'API key id of the request (never the key itself)',
    model String COMMENT 'Model as the client asked for it',
    channel_id String COMMENT 'Channel that failed',
    error_kind String COMMENT 'Why the channel failed: the gateway error kind, e.g. upstream-unavailable',
    upstream_status Nullable(UInt16) COMMENT 'HTTP status the upstream answered, NULL when it sent none (timeout, connection error)',
    latency_ms UInt64 COMMENT 'Time spent on the failed attempt (ms)',
    retry_after_ms Nullable(UInt64) COMMENT 'Wait the upstream asked for (Retry-After, ms), NULL when it asked none',
    next_channel_id String COMMENT 'Channel tried next, empty when the router gave up'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, channel_id, event_id);
