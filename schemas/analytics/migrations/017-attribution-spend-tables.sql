-- Spend per day by who it was spent for: the team of the keys, the end user the requests named,
-- and each tag (README "For analysts"). SummingMergeTree tables fed by materialized views
-- `spend_by_*_day_mv` from billing_lines, with the columns, the reading rule and the writer's
-- contract of 008: rows of one (day, group) are summed only when parts merge, so always read with
-- `sum(...) ... GROUP BY day, <group>` (never FINAL, never a bare row); the billing consumer
-- inserts each UsageRecorded event into billing_lines at most once, or the views count it twice.
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/summingmergetree
-- https://clickhouse.com/docs/sql-reference/statements/create/view#materialized-view
--
-- spend_by_team_day leaves out requests of keys of no team and spend_by_end_user_day those that
-- named no end user, as spend_by_user_day leaves out keys of no user. spend_by_tag_day holds one
-- row per tag of a line (ARRAY JOIN, https://clickhouse.com/docs/sql-reference/statements/select/array-join):
-- a request tagged `feature=search` and `env=prod` counts in full under both, so its sum over
-- all tags is not the total spend; lines without tags are not in it.
--
-- Same upgrade as 008: drop the views and tables, create the tables, fill them from
-- billing_lines FINAL (lines written before 016 have no team, end user or tags and add nothing),
-- then create the views. Safe to re-run from any point, under the same contract: no billing
-- consumer writing meanwhile, one migrator at a time. A migration that later swaps
-- billing_lines must re-create these views too (a view follows the table it was created on).

DROP TABLE IF EXISTS spend_by_team_day_mv;

DROP TABLE IF EXISTS spend_by_end_user_day_mv;

DROP TABLE IF EXISTS spend_by_tag_day_mv;

DROP TABLE IF EXISTS spend_by_team_day;

DROP TABLE IF EXISTS spend_by_end_user_day;

DROP TABLE IF EXISTS spend_by_tag_day;

CREATE TABLE IF NOT EXISTS spend_by_team_day
(
    day Date COMMENT 'UTC date of the billed requests',
    team_id String COMMENT 'Team of the keys (never empty: requests of keys of no team are left out)',
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
ORDER BY (day, team_id);

CREATE TABLE IF NOT EXISTS spend_by_end_user_day
(
    day Date COMMENT 'UTC date of the billed requests',
    end_user_id String COMMENT 'End user the requests named (never empty: requests that named none are left out)',
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
ORDER BY (day, end_user_id);

CREATE TABLE IF NOT EXISTS spend_by_tag_day
(
    day Date COMMENT 'UTC date of the billed requests',
    tag String COMMENT 'One tag of the requests, name=value: a request with several tags counts once under each',
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
ORDER BY (day, tag);

INSERT INTO spend_by_team_day (day, team_id, requests, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, tokens, cost_usd)
SELECT day, team_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines FINAL
WHERE team_id != ''
GROUP BY day, team_id;

INSERT INTO spend_by_end_user_day (day, end_user_id, requests, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, tokens, cost_usd)
SELECT day, end_user_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines FINAL
WHERE end_user_id != ''
GROUP BY day, end_user_id;

INSERT INTO spend_by_tag_day (day, tag, requests, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, tokens, cost_usd)
SELECT day, tag, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines FINAL
ARRAY JOIN tags AS tag
GROUP BY day, tag;

CREATE MATERIALIZED VIEW IF NOT EXISTS spend_by_team_day_mv TO spend_by_team_day AS
SELECT day, team_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines
WHERE team_id != ''
GROUP BY day, team_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS spend_by_end_user_day_mv TO spend_by_end_user_day AS
SELECT day, end_user_id, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines
WHERE end_user_id != ''
GROUP BY day, end_user_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS spend_by_tag_day_mv TO spend_by_tag_day AS
SELECT day, tag, count() AS requests, sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens, input_tokens + output_tokens AS tokens, sum(cost_usd) AS cost_usd
FROM billing_lines
ARRAY JOIN tags AS tag
GROUP BY day, tag;
