-- Config audit: one row per control-plane event (topic tollgate.config): who changed what, when,
-- without secrets (no key digest, no password hash, no channel API key), projected by
-- consumers/config-audit/project-config-audit-row.ts. ReplacingMergeTree ordered by day, event
-- type, entity, event_id: every sorting-key column is a field of the event, so a redelivered
-- event replaces its own row; read with FINAL.
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/replacingmergetree
CREATE TABLE IF NOT EXISTS config_audit
(
    event_id String COMMENT 'Control-plane event id, unique per event: the deduplication key',
    occurred_at DateTime('UTC') COMMENT 'When the change was made, UTC, whole seconds',
    occurred_at_ms UInt64 COMMENT 'When the change was made, ms since epoch (UTC)',
    actor String COMMENT 'Who made the change: admin, cli, config-file, bootstrap or a user id',
    event_type String COMMENT 'Control-plane event type, e.g. KeyCreated, ChannelUpserted, PriceSet',
    entity_id String COMMENT 'What was changed: the user, key, channel or price id',
    changes String COMMENT 'The event fields as a JSON object, secrets left out, 64-bit integers as decimal strings'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(occurred_at)
ORDER BY (toDate(occurred_at), event_type, entity_id, event_id);
