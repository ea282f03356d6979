-- requires: 21.1
-- The bloom-filter skipping indexes of 004 again, on the tables 006 and 007 re-created (the new
-- tables do not inherit the indexes of the ones they replaced). key_id is now second in the
-- sorting key, so one key over one day is found by the primary index; the bloom filter still
-- skips granules for one key over many days. Data-skipping indexes do not exist on 18.16: modern
-- servers only. IF NOT EXISTS: a server upgraded from 18.16 applies 004 after 006 and 007, on the
-- new tables, with the same index names.
-- https://clickhouse.com/docs/optimize/skipping-indexes
ALTER TABLE consumption_log ADD INDEX IF NOT EXISTS consumption_log_key_id key_id TYPE bloom_filter GRANULARITY 4;

ALTER TABLE billing_lines ADD INDEX IF NOT EXISTS billing_lines_key_id key_id TYPE bloom_filter GRANULARITY 4;
