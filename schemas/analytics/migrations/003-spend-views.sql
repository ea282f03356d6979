-- Spend projections over billing_lines FINAL, so redelivered or replayed events never count
-- twice. tokens = input_tokens + output_tokens (input includes cached, output includes
-- reasoning); cost_usd is exact (Decimal, 9 decimals). The inner query names its sums sum_*
-- because ClickHouse 18.16 substitutes an alias that equals a column name inside aggregates.
-- spend_by_user_day leaves out requests made with keys that belong to no user.
CREATE VIEW IF NOT EXISTS spend_by_key_day AS
SELECT day, key_id, requests, sum_input AS input_tokens, sum_output AS output_tokens, sum_input + sum_output AS tokens, sum_cost AS cost_usd
FROM
(
    SELECT day, key_id, count() AS requests, sum(input_tokens) AS sum_input, sum(output_tokens) AS sum_output, sum(cost_usd) AS sum_cost
    FROM billing_lines FINAL
    GROUP BY day, key_id
);

CREATE VIEW IF NOT EXISTS spend_by_user_day AS
SELECT day, user_id, requests, sum_input AS input_tokens, sum_output AS output_tokens, sum_input + sum_output AS tokens, sum_cost AS cost_usd
FROM
(
    SELECT day, user_id, count() AS requests, sum(input_tokens) AS sum_input, sum(output_tokens) AS sum_output, sum(cost_usd) AS sum_cost
    FROM billing_lines FINAL
    WHERE user_id != ''
    GROUP BY day, user_id
);

CREATE VIEW IF NOT EXISTS spend_by_model_day AS
SELECT day, upstream_model, requests, sum_input AS input_tokens, sum_output AS output_tokens, sum_input + sum_output AS tokens, sum_cost AS cost_usd
FROM
(
    SELECT day, upstream_model, count() AS requests, sum(input_tokens) AS sum_input, sum(output_tokens) AS sum_output, sum(cost_usd) AS sum_cost
    FROM billing_lines FINAL
    GROUP BY day, upstream_model
);
