-- consumption_log re-created ordered for analysts: day first, then key, model, channel, and
-- event_id last, so a query for a time range (and a key, a model) reads only the granules it
-- needs instead of the whole table (001 ordered by the random event_id). Still a
-- ReplacingMergeTree read with FINAL: every sorting-key column is a deterministic function of
-- the RequestCompleted event, so a redelivered event has the same key and replaces its own row.
-- Every column carries a COMMENT with its meaning and unit (ClickHouse 18.16 and chdb both accept
-- `name Type COMMENT '...'` in CREATE TABLE and show it in system.columns).
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/replacingmergetree
--
-- The sorting key of a MergeTree table cannot be changed in place, so the upgrade copies:
--   1. drop a leftover consumption_log_005 (a previous run that stopped after its swap: the data
--      it holds was already copied),
--   2. create consumption_log_006 with the new layout,
--   3. copy every row, one per event_id (old FINAL), every column including ingested_at_ms (005),
--   4. swap the names in one RENAME (https://clickhouse.com/docs/sql-reference/statements/rename),
--   5. drop the old table.
-- A run interrupted anywhere resumes correctly (schema_migrations records the version only after
-- the last statement): steps 1, 2 and 5 are IF [NOT] EXISTS, a repeated copy only adds rows FINAL
-- collapses. Contract: apply it with no ledger consumer of an older version writing (consumers
-- migrate at start, before they consume), and with one migrator at a time (`npm run migrate`
-- once, before starting several consumer processes): a row written to the old table between
-- steps 3 and 4 would be dropped with it (its event stays in Kafka), and a second migrator
-- running the same swap at the same moment fails at step 4 (the first one has already done it).
DROP TABLE IF EXISTS consumption_log_005;

CREATE TABLE IF NOT EXISTS consumption_log_006
(
    event_id String COMMENT 'RequestCompleted event id, unique per event: the deduplication key',
    request_id String COMMENT 'Request id, shared with billing_lines and failovers',
    occurred_at DateTime('UTC') COMMENT 'When the request finished, UTC, whole seconds',
    occurred_at_ms UInt64 COMMENT 'When the request finished, ms since epoch (UTC)',
    key_id String COMMENT 'API key id (never the key itself)',
    user_id String COMMENT 'User who owns the key, empty when the key belongs to no user',
    model String COMMENT 'Model as the client asked for it',
    upstream_model String COMMENT 'Model the upstream served (after the channel model map), empty when no channel was reached',
    channel_id String COMMENT 'Channel that served the request (or failed last), empty when none was tried',
    provider String COMMENT 'Provider of channel_id, empty when no channel was tried',
    client_format String COMMENT 'Client wire format: openai-responses, openai-chat, anthropic-messages or gemini',
    stream UInt8 COMMENT '1 when the client asked for a stream, else 0',
    pass_through UInt8 COMMENT '1 when the request was relayed unchanged (pass-through), else 0',
    status String COMMENT 'How the request ended: completed, failed or cancelled',
    error_kind String COMMENT 'Gateway error kind, empty when the request completed',
    http_status UInt16 COMMENT 'HTTP status sent to the client (499 when the client went away first)',
    input_tokens UInt64 COMMENT 'Input tokens, cached_input_tokens included (tokens)',
    cached_input_tokens UInt64 COMMENT 'Input tokens read from the provider cache (tokens)',
    cache_write_tokens UInt64 COMMENT 'Input tokens written to the provider cache (tokens)',
    output_tokens UInt64 COMMENT 'Output tokens, reasoning_tokens included (tokens)',
    reasoning_tokens UInt64 COMMENT 'Reasoning tokens (tokens)',
    usage_source String COMMENT 'Where the token counts came from: reported, estimated or partial',
    cost_usd Decimal64(9) COMMENT 'Cost in USD, exact to 9 decimals (nano-USD), priced like billing_lines: the price book as of the event price revision, at occurred_at',
    latency_ms UInt64 COMMENT 'Time from arrival to the last byte (ms)',
    ttfb_ms Nullable(UInt64) COMMENT 'Time from arrival to the first byte sent to the client (ms), NULL when nothing was sent',
    attempts UInt16 COMMENT 'Channels tried, the one that served included (count)',
    ingested_at_ms UInt64 DEFAULT 0 COMMENT 'When the ledger consumer wrote the row, ms since epoch, 0 for rows written before migration 005'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(occurred_at)
ORDER BY (toDate(occurred_at), key_id, model, channel_id, event_id);

INSERT INTO consumption_log_006
    (event_id, request_id, occurred_at, occurred_at_ms, key_id, user_id, model, upstream_model, channel_id, provider, client_format, stream, pass_through, status, error_kind, http_status,
     input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, usage_source, cost_usd, latency_ms, ttfb_ms, attempts, ingested_at_ms)
SELECT event_id, request_id, occurred_at, occurred_at_ms, key_id, user_id, model, upstream_model, channel_id, provider, client_format, stream, pass_through, status, error_kind, http_status,
     input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, usage_source, cost_usd, latency_ms, ttfb_ms, attempts, ingested_at_ms
FROM consumption_log FINAL;

RENAME TABLE consumption_log TO consumption_log_005, consumption_log_006 TO consumption_log;

DROP TABLE IF EXISTS consumption_log_005;
