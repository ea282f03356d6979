-- requires: 21.1
-- Bloom-filter skipping indexes on key_id, for analysts filtering one key's rows (the tables are
-- ordered by event_id). Data-skipping indexes do not exist on 18.16: modern servers only.
ALTER TABLE consumption_log ADD INDEX IF NOT EXISTS consumption_log_key_id key_id TYPE bloom_filter GRANULARITY 4;

ALTER TABLE billing_lines ADD INDEX IF NOT EXISTS billing_lines_key_id key_id TYPE bloom_filter GRANULARITY 4;
