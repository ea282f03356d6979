-- When the ledger consumer wrote each consumption_log row: wall-clock ms since epoch, taken as the
-- consumer builds the insert for its batch. ingested_at_ms - occurred_at_ms is the pipeline lag
-- from the end of a request to its row (npm run bench reports p50/p99). Rows written before this
-- migration read 0. No IF NOT EXISTS: ClickHouse 18.16 cannot parse ADD COLUMN IF NOT EXISTS;
-- schema_migrations keeps the statement from running twice.
ALTER TABLE consumption_log ADD COLUMN ingested_at_ms UInt64 DEFAULT 0;
