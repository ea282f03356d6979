-- consumption_log gets the columns the other tables have and the start of each request:
--   day            the UTC date of occurred_at, as billing_lines and failovers have it;
--   started_at_ms  when the request arrived (RequestCompleted.startedAt, schema v5), ms since epoch;
--   started_at     the same in whole UTC seconds, beside occurred_at (when the request finished).
-- Rows written before this migration (and events of older gateways, which carry no startedAt)
-- read started_at_ms = occurred_at_ms - latency_ms: latency_ms runs from arrival to the last byte,
-- so that is the arrival up to rounding. The DEFAULT expressions compute those values for existing
-- parts on read, so no row is rewritten; the ledger writes every column of new rows.
-- A plain ADD COLUMN with a DEFAULT runs on ClickHouse 18.16 and modern engines alike (no IF NOT
-- EXISTS: 18.16 cannot parse it; schema_migrations keeps a statement from running twice, and
-- migrate.ts counts an existing column as added). 18.16 drops a COMMENT given in ADD COLUMN, so
-- each comment is its own statement.
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#add-column
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#comment-column
ALTER TABLE consumption_log ADD COLUMN day Date DEFAULT toDate(occurred_at) AFTER occurred_at_ms;
ALTER TABLE consumption_log COMMENT COLUMN day 'UTC date of occurred_at (the day the request finished)';
ALTER TABLE consumption_log ADD COLUMN started_at_ms UInt64 DEFAULT occurred_at_ms - latency_ms AFTER day;
ALTER TABLE consumption_log COMMENT COLUMN started_at_ms 'When the request arrived, ms since epoch (UTC); occurred_at_ms - latency_ms for rows and events older than RequestCompleted v5';
ALTER TABLE consumption_log ADD COLUMN started_at DateTime('UTC') DEFAULT toDateTime(intDiv(started_at_ms, 1000), 'UTC') AFTER started_at_ms;
ALTER TABLE consumption_log COMMENT COLUMN started_at 'When the request arrived, UTC, whole seconds (occurred_at is when it finished)';
ALTER TABLE consumption_log COMMENT COLUMN usage_source 'Where the token counts came from: reported, estimated, partial, or none when the request got no usage (rows older than RequestCompleted v5 say reported there)';
