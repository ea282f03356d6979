-- Who each request was spent for, beyond its key and user (RequestCompleted v6 and UsageRecorded
-- v3 carry it; README "Attribution"):
--   team_id      the key's team, '' when the key belongs to no team;
--   end_user_id  the caller's end user (x-tollgate-end-user, OpenAI safety_identifier or user,
--                Anthropic metadata.user_id, first found in the configured precedence), '' when
--                none was named;
--   tags         the request's tags, each 'name=value', one per name (team defaults, key
--                defaults, then the x-tollgate-tags header), [] when none.
-- Rows written before this migration, and events of older gateways, read '', '' and [].
-- A plain ADD COLUMN runs on ClickHouse 18.16 and modern engines alike (no IF NOT EXISTS: 18.16
-- cannot parse it; schema_migrations keeps a statement from running twice, and migrate.ts counts
-- an existing column as added); an Array column defaults to the empty array. 18.16 drops a
-- COMMENT given in ADD COLUMN, so each comment is its own statement. The materialized views of
-- 008 select their columns by name, so they keep reading billing_lines as before.
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#add-column
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#comment-column
ALTER TABLE consumption_log ADD COLUMN team_id String DEFAULT '' AFTER user_id;
ALTER TABLE consumption_log COMMENT COLUMN team_id 'Team of the key, empty when the key belongs to no team';
ALTER TABLE consumption_log ADD COLUMN end_user_id String DEFAULT '' AFTER team_id;
ALTER TABLE consumption_log COMMENT COLUMN end_user_id 'The caller''s end user (x-tollgate-end-user, safety_identifier, user or metadata.user_id), empty when none was named';
ALTER TABLE consumption_log ADD COLUMN tags Array(String) AFTER end_user_id;
ALTER TABLE consumption_log COMMENT COLUMN tags 'Tags of the request, each name=value, one per name (team and key defaults, x-tollgate-tags header)';
ALTER TABLE billing_lines ADD COLUMN team_id String DEFAULT '' AFTER user_id;
ALTER TABLE billing_lines COMMENT COLUMN team_id 'Team of the key, empty when the key belongs to no team';
ALTER TABLE billing_lines ADD COLUMN end_user_id String DEFAULT '' AFTER team_id;
ALTER TABLE billing_lines COMMENT COLUMN end_user_id 'The caller''s end user (x-tollgate-end-user, safety_identifier, user or metadata.user_id), empty when none was named';
ALTER TABLE billing_lines ADD COLUMN tags Array(String) AFTER end_user_id;
ALTER TABLE billing_lines COMMENT COLUMN tags 'Tags of the request, each name=value, one per name (team and key defaults, x-tollgate-tags header)';
