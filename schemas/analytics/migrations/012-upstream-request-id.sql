-- The upstream's own id of the call that served each request (or failed last): its x-request-id
-- (OpenAI and compatible providers) or request-id (Anthropic) response header, from the
-- RequestCompleted event's upstreamRequestId (schema v4). Empty for rows written before this
-- migration, for events of older gateways, and when the upstream sent none. A plain ADD COLUMN
-- with a DEFAULT runs on ClickHouse 18.16 and modern engines alike (no IF NOT EXISTS: 18.16
-- cannot parse it; schema_migrations keeps the statement from running twice). 18.16 drops a
-- COMMENT given in ADD COLUMN, so the comment is set by its own statement
-- (https://clickhouse.com/docs/sql-reference/statements/alter/column#comment-column).
ALTER TABLE consumption_log ADD COLUMN upstream_request_id String DEFAULT '';
ALTER TABLE consumption_log COMMENT COLUMN upstream_request_id 'The upstream''s own id of the call that served (or failed last): its x-request-id or request-id response header, empty when none was sent';
