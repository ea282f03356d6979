-- Cache economics of each billing line, from UsageRecorded v5 and the price book (README
-- "Prompt-cache economics"):
--   cache_write_1h_tokens    the part of cache_write_tokens written to Anthropic's 1-hour cache
--                            (tokens); the rest of the writes had the 5-minute lifetime;
--   cache_write_1h_per_mtok  the price those 1-hour writes were billed at (USD per million
--                            tokens; the entry's cacheWrite1hPerMTok, else its cacheWritePerMTok);
--   cache_savings_usd        what the cache reads saved against the input price:
--                            cached_input_tokens × (input_per_mtok − cache_read_per_mtok) / 1e6,
--                            rounded half up to the nano-USD, never negative (0 when unpriced).
-- The hit rate (cached_input_tokens / input_tokens) is computed in queries, not stored.
-- Rows written before this migration, and events of older gateways, read 0 in all three: their
-- writes were billed at the cache-write price, and their savings were not recorded.
-- Numeric columns without a DEFAULT: every engine, ClickHouse 18.16 under FINAL included, fills
-- rows of older parts with the type's default, 0. A plain ADD COLUMN runs on 18.16 and modern
-- engines alike (no IF NOT EXISTS: 18.16 cannot parse it; schema_migrations keeps a statement from
-- running twice). 18.16 drops a COMMENT given in ADD COLUMN, so each comment is its own statement.
-- The materialized views of 008 and 017 select their columns by name, so they keep reading
-- billing_lines as before.
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#add-column
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#comment-column
ALTER TABLE billing_lines ADD COLUMN cache_write_1h_tokens UInt64 AFTER cache_write_tokens;
ALTER TABLE billing_lines COMMENT COLUMN cache_write_1h_tokens 'Part of cache_write_tokens written to the 1-hour cache (Anthropic), tokens';
ALTER TABLE billing_lines ADD COLUMN cache_savings_usd Decimal64(9) AFTER cost_usd;
ALTER TABLE billing_lines COMMENT COLUMN cache_savings_usd 'Saved by cache reads against the input price, USD: cached_input_tokens x (input_per_mtok - cache_read_per_mtok) / 1e6, never negative';
ALTER TABLE billing_lines ADD COLUMN cache_write_1h_per_mtok Decimal64(9) AFTER cache_write_per_mtok;
ALTER TABLE billing_lines COMMENT COLUMN cache_write_1h_per_mtok 'Price of 1-hour cache writes, USD per million tokens (0 when unpriced)';
