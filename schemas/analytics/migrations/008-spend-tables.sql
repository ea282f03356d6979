-- Spend projections kept up incrementally: the views of 003 re-aggregated `billing_lines FINAL`
-- over all history on every query; these are SummingMergeTree tables of the same names, fed by
-- materialized views `spend_by_*_day_mv` that aggregate each block inserted into billing_lines.
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/summingmergetree
-- https://clickhouse.com/docs/sql-reference/statements/create/view#materialized-view
--
-- Reading: rows of the same (day, group) are summed only when parts merge, at an unknown time, so
-- a table may hold several partial rows per (day, group). Always read with
-- `sum(...) ... GROUP BY day, <group>` (never FINAL, never a bare SELECT of a row).
-- tokens = input_tokens + output_tokens (input includes cached, output includes reasoning).
-- cost_usd is Decimal128(9): exact to the nano-USD, and the sums of Decimal64(9) costs
-- (sum() of Decimal64 is Decimal128 on both engines, and 18.16 requires the view's column type
-- to equal the table's) never overflow. spend_by_user_day leaves out keys that belong to no user
-- (user_id = '').
--
-- Contract with the billing consumer (the writer of billing_lines): it inserts each UsageRecorded
-- event id into billing_lines AT MOST ONCE, across inserts and within one insert (it looks up which
-- ids of a batch are already there and inserts only the others). A materialized view sees every
-- inserted row, before ReplacingMergeTree collapses duplicates, so a second insert of an event
-- would count it twice here while billing_lines FINAL still shows it once.
--
-- The upgrade drops the materialized views and the old views or tables, re-creates the tables,
-- fills them from billing_lines FINAL, then creates the materialized views. It is safe to re-run
-- from any point (each run rebuilds the tables from billing_lines FINAL), under the same contract
-- as 006 and 007: no billing consumer writing meanwhile (a line inserted between the fill and the
-- creation of the views would be missing here), one migrator at a time (two would fill twice).
-- A materialized view stays attached to the table it was created on, even when that table is
-- renamed: a later migration that swaps billing_lines must re-create these views the same way.
DROP TABLE IF EXISTS spend_by_key_day_mv;

DROP TABLE IF EXISTS spend_by_user_day_mv;

DROP TABLE IF EXISTS spend_by_model_day_mv;

DROP TABLE IF EXISTS spend_by_channel_day_mv;

DROP TABLE IF EXISTS spend_by_key_day;

DROP TABLE IF EXISTS spend_by_user_day;

DROP TABLE IF EXISTS spend_by_model_day;

DROP TABLE IF EXISTS spend_by_channel_day;

CREATE TABLE IF NOT EXISTS spend_by_key_day
(
    day Date COMMENT 'UTC date of the billed requests',
    key_id String COMMENT 'API key id',
    requests UInt64 COMMENT 'Billed requests (count), partial: read sum(requests)',
    input_tokens UInt64 COMMENT 'Input tokens, cached included (tokens), partial: read sum()',
    cached_input_tokens UInt64 COMMENT 'Input tokens read from the provider cache (tokens), partial: read sum()',
    cache_write_tokens UInt64 COMMENT 'Input tokens written to the provider cache (tokens), partial: read sum()',
    output_tokens UInt64 COMMENT 'Output tokens, reasoning included (tokens), partial: read sum()',
    reasoning_tokens UInt64 COMMENT 'Reasoning tokens (tokens), partial: read sum()',
    tokens UInt64 COMMENT 'input_tokens + output_tokens (tokens), partial: read sum()',
    cost_usd Decimal128(9) COMMENT 'Billed cost in USD, exact to 9 decimals, partial: read sum()'
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, key_id);

CREATE TABLE IF NOT EXISTS spend_by_user_day
(
    day Date COMMENT 'UTC date of the billed requests',
    user_id String COMMENT 'User who owns the keys (never empty: keys of no user are left out)',
    requests UInt64 COMMENT 'Billed requests (count), partial: read sum(requests)',
    input_tokens UInt64 COMMENT 'Input tokens, cached included (tokens), partial: read sum()',
    cached_input_tokens UInt64 COMMENT 'Input tokens read from the provider cache (tokens), partial: read sum()',
    cache_write_tokens UInt64 COMMENT 'Input tokens written to the provider cache (tokens), partial: read sum()',
    output_tokens UInt64 COMMENT 'Output tokens, reasoning included (tokens), partial: read sum()',
    reasoning_tokens UInt64 COMMENT 'Reasoning tokens (tokens), partial: read sum()',
    tokens UInt64 COMMENT 'input_tokens + output_tokens (tokens), partial: read sum()',
    cost_usd Decimal128(9) COMMENT 'Billed cost in USD, exact to 9 decimals, partial: read sum()'
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, user_id);

CREATE TABLE IF NOT EXISTS spend_by_model_day
(
    day Date COMMENT 'UTC date of the billed requests',
    upstream_model String COMMENT 'Model the upstream served: what prices apply to',
    requests UInt64 COMMENT 'Billed requests (count), partial: read sum(requests)',
    input_tokens UInt64 COMMENT 'Input tokens, cached included (tokens), partial: read sum()',
    cached_input_tokens UInt64 COMMENT 'Input tokens read from the provider cache (tokens), partial: read sum()',
    cache_write_tokens UInt64 COMMENT 'Input tokens written to the provider cache (tokens), partial: read sum()',
    output_tokens UInt64 COMMENT 'Output tokens, reasoning included (tokens), partial: read sum()',
    reasoning_tokens UInt64 COMMENT 'Reasoning tokens (tokens), partial: read sum()',
    tokens UInt64 COMMENT 'input_tokens + output_tokens (tokens), partial: read sum()',
    cost_usd Decimal128(9) COMMENT 'Billed cost in USD, exact to 9 decimals, partial: read sum()'
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, upstream_model);

CREATE TABLE IF NOT EXISTS spend_by_channel_day
(
    day Date COMMENT 'UTC date of the billed requests',
    channel_id String COMMENT 'Channel that served the requests',
    requests UInt64 COMMENT 'Billed requests (count), partial: read sum(requests)',
    input_tokens UInt64 COMMENT 'Input tokens, cached included (tokens), partial: read sum()',
    cached_input_tokens UInt64 COMMENT 'Input tokens read from the provider cache (tokens), partial: read sum()',
    cache_write_tokens UInt64 COMMENT 'Input tokens written to the provider cache (tokens), partial: read sum()',
    output_tokens UInt64 COMMENT 'Output tokens, reasoning included (tokens), partial: read sum()',
    reasoning_tokens UInt64 COMMENT 'Reasoning tokens (tokens), partial: read sum()',
    tokens UInt64 COMMENT 'input_tokens + output_tokens (tokens), partial: read sum()',
    cost_usd Decimal128(9) COMMENT 'Billed cost in USD, exact to 9 decimals, partial: read sum()'
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, channel_id);

INSERT INTO spend_by_key_day (day, key_id, requests, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, tokens, cost_usd)
SELECT day, key_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines FINAL
GROUP BY day, key_id;

INSERT INTO spend_by_user_day (day, user_id, requests, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, tokens, cost_usd)
SELECT day, user_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines FINAL
WHERE user_id != ''
GROUP BY day, user_id;

INSERT INTO spend_by_model_day (day, upstream_model, requests, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, tokens, cost_usd)
SELECT day, upstream_model, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines FINAL
GROUP BY day, upstream_model;

INSERT INTO spend_by_channel_day (day, channel_id, requests, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, tokens, cost_usd)
SELECT day, channel_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines FINAL
GROUP BY day, channel_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS spend_by_key_day_mv TO spend_by_key_day AS
SELECT day, key_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines
GROUP BY day, key_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS spend_by_user_day_mv TO spend_by_user_day AS
SELECT day, user_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines
WHERE user_id != ''
GROUP BY day, user_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS spend_by_model_day_mv TO spend_by_model_day AS
SELECT day, upstream_model, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines
GROUP BY day, upstream_model;

CREATE MATERIALIZED VIEW IF NOT EXISTS spend_by_channel_day_mv TO spend_by_channel_day AS
SELECT day, channel_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines
GROUP BY day, channel_id;
