-- Alert deliveries: one row per budget alert (BudgetThresholdCrossed, topic tollgate.alerts) and
-- webhook it was sent to, written by the alerts consumer (consumers/alerts/) after each delivery,
-- successful or given up. The notifier looks a pair up here before sending, so an alert reaches a
-- webhook once however often the consumers restart or the topic is replayed. ReplacingMergeTree
-- keyed by (alert_id, webhook_id), the latest attempt (delivered_at_ms) kept: read with FINAL.
-- Plain String and DateTime/UInt64 ms pairs, as the other tables: ClickHouse 18.16 has no
-- DateTime64, and LowCardinality is experimental there.
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/replacingmergetree
CREATE TABLE IF NOT EXISTS alert_deliveries
(
    alert_id String COMMENT 'Alert id <budget_id>@<window_start_ms>:<threshold_percent>, the BudgetThresholdCrossed event id',
    webhook_id String COMMENT 'Webhook the alert was sent to (whk_...)',
    budget_id String COMMENT 'Budget whose threshold was reached',
    threshold_percent UInt8 COMMENT 'Threshold reached, percent of a limit, 1 to 100',
    window_start DateTime('UTC') COMMENT 'Start of the budget window, UTC, whole seconds (1970-01-01 for a lifetime budget)',
    window_start_ms UInt64 COMMENT 'Start of the budget window, ms since epoch (0 for a lifetime budget)',
    delivered_at DateTime('UTC') COMMENT 'When the last attempt ended, UTC, whole seconds',
    delivered_at_ms UInt64 COMMENT 'When the last attempt ended, ms since epoch (UTC): the row version, the latest wins',
    attempts UInt32 COMMENT 'HTTP attempts made (0 when the secret could not be opened)',
    http_status UInt16 COMMENT 'HTTP status of the last attempt, 0 when none came (timeout, connection error)',
    outcome String COMMENT 'delivered (a 2xx answer) or failed (every attempt failed)'
)
ENGINE = ReplacingMergeTree(delivered_at_ms)
PARTITION BY toYYYYMM(window_start)
ORDER BY (alert_id, webhook_id);
