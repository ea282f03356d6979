-- failovers.next_channel_id becomes Nullable(String): NULL for the last failed attempt of a
-- request (no channel was left, the router gave up), the channel tried next otherwise. A failover
-- is a row whose next_channel_id IS NOT NULL; the other rows are failed final attempts, also in
-- consumption_log as the request's channel_id with status failed or cancelled (README, For
-- analysts: failover rate per channel). 009 wrote '' for a give-up: the copy turns it into NULL.
-- https://clickhouse.com/docs/sql-reference/data-types/nullable
--
-- A column type and its existing values are changed by copying, as 006 does (same steps, same
-- contract: no failovers consumer of an older version writing meanwhile, one migrator at a time):
--   1. drop a leftover failovers_013 (a previous run that stopped after its swap),
--   2. create failovers_014 with the new column type,
--   3. copy every row, one per event_id (old FINAL), '' becoming NULL,
--   4. swap the names in one RENAME (https://clickhouse.com/docs/sql-reference/statements/rename),
--   5. drop the old table.
-- A run interrupted anywhere resumes correctly: steps 1, 2 and 5 are IF [NOT] EXISTS, and a copy
-- repeated after the swap reads the new table (nullIf leaves its NULLs NULL).
DROP TABLE IF EXISTS failovers_013;

CREATE TABLE IF NOT EXISTS failovers_014
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
    next_channel_id Nullable(String) COMMENT 'Channel tried next (a failover), NULL when none was left and the request failed on channel_id'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, channel_id, event_id);

INSERT INTO failovers_014
    (event_id, request_id, occurred_at, occurred_at_ms, day, key_id, model, channel_id, error_kind, upstream_status, latency_ms, retry_after_ms, next_channel_id)
SELECT event_id, request_id, occurred_at, occurred_at_ms, day, key_id, model, channel_id, error_kind, upstream_status, latency_ms, retry_after_ms, nullIf(next_channel_id, '')
FROM failovers FINAL;

RENAME TABLE failovers TO failovers_013, failovers_014 TO failovers;

DROP TABLE IF EXISTS failovers_013;
