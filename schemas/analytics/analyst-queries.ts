/**
 * The example queries of the README's "For analysts" section, word for word: the README's SQL
 * block is `renderAnalystQueries()`, and the analytics tests run each query on ClickHouse 18.16
 * and chdb. So they keep to the dialect both accept (README, ClickHouse dialect): one JOIN per
 * SELECT (nest for more), `ANY`/`ALL` spelled out on every JOIN, no CTEs, no window functions.
 * Joins to the dimension tables (`keys`, `users`, `channels`, `teams`) read them with FINAL in a subquery;
 * a row with no dimension row gets '' for its names (ClickHouse fills unmatched LEFT JOIN columns
 * with defaults: https://clickhouse.com/docs/operations/settings/settings#join_use_nulls).
 */

/** One example: its title (the `--` comment line above it) and its SQL, without the trailing `;`. */
export interface AnalystQuery {
  readonly title: string;
  readonly sql: string;
}

/** The examples, in README order. */
export const ANALYST_QUERIES: ReadonlyArray<AnalystQuery> = [
  {
    title: 'Spend per key per day, last 30 days, with the key’s name and its owner’s',
    sql: `SELECT day, key_id, key_name, owner, requests, tokens, cost_usd
FROM
(
    SELECT day, key_id, key_name, user_id, requests, tokens, cost_usd
    FROM
    (
        SELECT day, key_id, sum(requests) AS requests, sum(tokens) AS tokens, sum(cost_usd) AS cost_usd
        FROM spend_by_key_day
        WHERE day > today() - 30
        GROUP BY day, key_id
    ) AS spend
    ANY LEFT JOIN (SELECT key_id, name AS key_name, user_id FROM keys FINAL) AS key_names USING key_id
) AS spend_with_keys
ANY LEFT JOIN (SELECT user_id, name AS owner FROM users FINAL) AS owners USING user_id
ORDER BY day DESC, cost_usd DESC`,
  },
  {
    title: 'Top models by cost over the last 7 days',
    sql: `SELECT upstream_model, sum(requests) AS requests, sum(cost_usd) AS cost_usd
FROM spend_by_model_day
WHERE day > today() - 7
GROUP BY upstream_model
ORDER BY cost_usd DESC
LIMIT 10`,
  },
  {
    title:
      'Failover rate per channel over the last 7 days: attempts the router moved on from / attempts on the channel',
    sql: `SELECT channel_id, provider, attempts, failed_over, failed_last,
       round(failed_over / attempts, 4) AS failover_rate, round((failed_over + failed_last) / attempts, 4) AS error_rate
FROM
(
    SELECT channel_id, ended_here + failed_over AS attempts, failed_over, failed_last
    FROM
    (
        SELECT channel_id, count() AS ended_here
        FROM consumption_log FINAL
        WHERE day > today() - 7 AND channel_id != ''
        GROUP BY channel_id
    ) AS ended_by_channel
    ALL FULL OUTER JOIN
    (
        SELECT channel_id, countIf(next_channel_id IS NOT NULL) AS failed_over, countIf(next_channel_id IS NULL) AS failed_last
        FROM failovers FINAL
        WHERE day > today() - 7
        GROUP BY channel_id
    ) AS failed_by_channel USING channel_id
) AS attempts_by_channel
ANY LEFT JOIN (SELECT channel_id, provider FROM channels FINAL) AS channel_names USING channel_id
ORDER BY failover_rate DESC, channel_id`,
  },
  {
    title:
      'Requests per day and status over the last 7 days: how many got no usage, and the longest from arrival to the last byte',
    sql: `SELECT day, status, count() AS requests, countIf(usage_source = 'none') AS without_usage, max(occurred_at_ms - started_at_ms) AS longest_ms
FROM consumption_log FINAL
WHERE day > today() - 7
GROUP BY day, status
ORDER BY day DESC, status`,
  },
  {
    title: 'Requests made with a key after its revocation took effect',
    sql: `SELECT key_id, key_name, revoked_at, count() AS requests, min(started_at) AS first_started_at
FROM
(
    SELECT key_id, started_at, started_at_ms
    FROM consumption_log FINAL
    WHERE day > today() - 30
) AS recent
ALL INNER JOIN (SELECT key_id, name AS key_name, revoked_at, revoked_at_ms FROM keys FINAL WHERE revoked_at_ms IS NOT NULL) AS revoked_keys USING key_id
WHERE started_at_ms >= revoked_at_ms
GROUP BY key_id, key_name, revoked_at
ORDER BY requests DESC`,
  },
  {
    title:
      "Who changed a price, newest first (actor: a personal admin token's name, a console login, bootstrap-token or config-file; rows written before personal admin tokens say admin or cli, or hold a console user's id)",
    sql: `SELECT occurred_at, actor, entity_id AS price_id, visitParamExtractString(changes, 'model') AS model, changes
FROM config_audit FINAL
WHERE event_type = 'PriceSet'
ORDER BY occurred_at DESC
LIMIT 20`,
  },
  {
    title: 'Spend per team per week (ISO weeks, from Monday), last 8 weeks, with the team’s name',
    sql: `SELECT week, team_id, team_name, requests, tokens, cost_usd
FROM
(
    SELECT toMonday(day) AS week, team_id, sum(requests) AS requests, sum(tokens) AS tokens, sum(cost_usd) AS cost_usd
    FROM spend_by_team_day
    WHERE day >= toMonday(today()) - 49
    GROUP BY week, team_id
) AS spend
ANY LEFT JOIN (SELECT team_id, name AS team_name FROM teams FINAL) AS team_names USING team_id
ORDER BY week DESC, cost_usd DESC, team_id`,
  },
  {
    title: 'Spend per tag per day, last 30 days (a request with two tags counts under both)',
    sql: `SELECT day, tag, sum(requests) AS requests, sum(tokens) AS tokens, sum(cost_usd) AS cost_usd
FROM spend_by_tag_day
WHERE day > today() - 30
GROUP BY day, tag
ORDER BY day DESC, cost_usd DESC, tag`,
  },
  {
    title: 'Top end users by cost over the last 30 days',
    sql: `SELECT end_user_id, sum(requests) AS requests, sum(tokens) AS tokens, sum(cost_usd) AS cost_usd
FROM spend_by_end_user_day
WHERE day > today() - 30
GROUP BY end_user_id
ORDER BY cost_usd DESC, end_user_id
LIMIT 20`,
  },
  {
    title:
      'Cache hit rate and money saved per channel, model, key and team over the last 30 days (hit rate = cached ÷ input tokens; team_id empty = keys of no team)',
    sql: `SELECT channel_id, upstream_model, key_id, team_id, requests, input_tokens, cached_input_tokens,
       round(if(input_tokens = 0, 0, cached_input_tokens / input_tokens), 4) AS hit_rate,
       cache_write_tokens, cache_write_1h_tokens, savings_usd, cost_usd
FROM
(
    SELECT channel_id, upstream_model, key_id, team_id, sum(requests) AS requests, sum(input_tokens) AS input_tokens,
           sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens,
           sum(cache_write_1h_tokens) AS cache_write_1h_tokens, sum(cache_savings_usd) AS savings_usd, sum(cost_usd) AS cost_usd
    FROM cache_by_channel_model_day
    WHERE day > today() - 30
    GROUP BY channel_id, upstream_model, key_id, team_id
) AS cache
ORDER BY savings_usd DESC, channel_id, upstream_model, key_id, team_id`,
  },
];

/** The README's SQL block body: each query under its `-- title` line, ended by `;`, one blank line between. */
export function renderAnalystQueries(queries: ReadonlyArray<AnalystQuery> = ANALYST_QUERIES): string {
  return queries.map((query) => `-- ${query.title}\n${query.sql};`).join('\n\n');
}
