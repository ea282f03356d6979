-- Prompt-cache economics per day, channel, upstream model, key and team (README "Prompt-cache
-- economics"): a SummingMergeTree table fed by the materialized view cache_by_channel_model_day_mv
-- from billing_lines, with the reading rule and the writer's contract of 008: rows of one group
-- are summed only when parts merge, so always read with `sum(...) ... GROUP BY` (never FINAL,
-- never a bare row); the billing consumer inserts each UsageRecorded event into billing_lines at
-- most once, or the view counts it twice. team_id is '' for keys of no team (kept: the table
-- holds every billed line, so its sums over a day equal billing_lines').
-- Hit rate = sum(cached_input_tokens) / sum(input_tokens), computed by the reader.
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/summingmergetree
-- https://clickhouse.com/docs/sql-reference/statements/create/view#materialized-view
--
-- Same upgrade as 008 and 017: drop the view and the table, create the table, fill it from
-- billing_lines FINAL (lines written before 022 add their tokens and cost, with no 1-hour writes
-- and no savings), then create the view. Safe to re-run from any point, under the same contract:
-- no billing consumer writing meanwhile, one migrator at a time. A migration that later swaps
-- billing_lines must re-create this view too.

DROP TABLE IF EXISTS cache_by_channel_model_day_mv;

DROP TABLE IF EXISTS cache_by_channel_model_day;

CREATE TABLE IF NOT EXISTS cache_by_channel_model_day
(
    day Date COMMENT 'UTC date of the billed requests',
    channel_id String COMMENT 'Channel that served the requests',
    upstream_model String COMMENT 'Model the upstream served (what prices apply to)',
    key_id String COMMENT 'Key of the requests',
    team_id String COMMENT 'Team of the key, empty when the key belongs to no team',
    requests UInt64 COMMENT 'Billed requests (count), partial: read sum(requests)',
    input_tokens UInt64 COMMENT 'Input tokens, cached included (tokens), partial: read sum()',
    cached_input_tokens UInt64 COMMENT 'Input tokens read from the provider cache (tokens), partial: read sum()',
    cache_write_tokens UInt64 COMMENT 'Input tokens written to the provider cache, both lifetimes (tokens), partial: read sum()',
    cache_write_1h_tokens UInt64 COMMENT 'Part of cache_write_tokens written to the 1-hour cache (tokens), partial: read sum()',
    cost_usd Decimal128(9) COMMENT 'Billed cost in USD, exact to 9 decimals, partial: read sum()',
    cache_savings_usd Decimal128(9) COMMENT 'Saved by cache reads against the input price, USD, partial: read sum()'
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, channel_id, upstream_model, key_id, team_id);

INSERT INTO cache_by_channel_model_day (day, channel_id, upstream_model, key_id, team_id, requests, input_tokens, cached_input_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd, cache_savings_usd)
SELECT day, channel_id, upstream_model, key_id, team_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens,
       sum(cache_write_tokens) AS cache_write_tokens, sum(cache_write_1h_tokens) AS cache_write_1h_tokens, sum(cost_usd) AS cost_usd, sum(cache_savings_usd) AS cache_savings_usd
FROM billing_lines FINAL
GROUP BY day, channel_id, upstream_model, key_id, team_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS cache_by_channel_model_day_mv TO cache_by_channel_model_day AS
SELECT day, channel_id, upstream_model, key_id, team_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens,
       sum(cache_write_tokens) AS cache_write_tokens, sum(cache_write_1h_tokens) AS cache_write_1h_tokens, sum(cost_usd) AS cost_usd, sum(cache_savings_usd) AS cache_savings_usd
FROM billing_lines
GROUP BY day, channel_id, upstream_model, key_id, team_id;
