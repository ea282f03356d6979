-- Teams in the dimension tables, so spend per team joins to the team's name, limits and tags:
--   teams         one row per team (TeamCreated, TeamUpdated): name, status, model allowlist,
--                 default tags, rpm/tpm/rpd/tpd;
--   team_members  one row per (team, user) ever a member (TeamMemberSet, TeamMemberRemoved): the
--                 role, and status removed once the user left (a later TeamMemberSet makes it
--                 active again, from a new joined_at);
--   keys          gains the key's team_id and default tags (KeyCreated, KeyUpdated).
-- Kept up by the dimensions consumer like the tables of 015: every row is the entity after one
-- config-topic event, `version` that event's offset, ReplacingMergeTree(version) keeps the highest:
-- read with FINAL (in a subquery when joining). Teams are disabled, never deleted.
-- Key rows written before this migration read team_id '' and tags [] until their key changes.
-- Same dialect as 015 and 016 (ClickHouse 18.16 and chdb): no IF NOT EXISTS on ADD COLUMN, each
-- column comment its own statement, Nullable(UInt64) for unlimited limits, no Nullable(Array).
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/replacingmergetree
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#add-column
CREATE TABLE IF NOT EXISTS teams
(
    team_id String COMMENT 'Team id (team_ + 16 hex): team_id of consumption_log, billing_lines, spend_by_team_day and keys',
    name String COMMENT 'Display name',
    status String COMMENT 'active or disabled (the keys of a disabled team are refused)',
    models Array(String) COMMENT 'Models the team''s keys may reach (bounds each key''s own list); empty = every model',
    tags Array(String) COMMENT 'Default tags added to every request of the team''s keys, each name=value, before the key''s',
    rpm Nullable(UInt64) COMMENT 'Requests per minute over all the team''s keys, NULL = unlimited',
    tpm Nullable(UInt64) COMMENT 'Tokens per minute over all the team''s keys (tokens), NULL = unlimited',
    rpd Nullable(UInt64) COMMENT 'Requests per calendar day (budgets'' time zone) over all the team''s keys, NULL = unlimited',
    tpd Nullable(UInt64) COMMENT 'Tokens (input + output) per calendar day (budgets'' time zone) over all the team''s keys, NULL = unlimited',
    created_at DateTime('UTC') COMMENT 'When the team was created, UTC, whole seconds',
    created_at_ms UInt64 COMMENT 'When the team was created, ms since epoch (UTC)',
    updated_at DateTime('UTC') COMMENT 'When the change this row holds was made, UTC, whole seconds',
    updated_at_ms UInt64 COMMENT 'When the change this row holds was made, ms since epoch (UTC)',
    version UInt64 COMMENT 'Config-topic offset of the last event folded into this row: the highest wins'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY team_id;

CREATE TABLE IF NOT EXISTS team_members
(
    team_id String COMMENT 'Team id: team_id of teams',
    user_id String COMMENT 'User id: user_id of users',
    role String COMMENT 'Role in the team: team_admin (manages the team''s keys, sees its usage) or member',
    status String COMMENT 'active, or removed when the user left the team (removed_at says when)',
    joined_at DateTime('UTC') COMMENT 'When the user joined the team (again, after a removal), UTC, whole seconds',
    joined_at_ms UInt64 COMMENT 'When the user joined the team, ms since epoch (UTC)',
    removed_at Nullable(DateTime('UTC')) COMMENT 'When the user left the team, UTC, whole seconds; NULL = a member',
    removed_at_ms Nullable(UInt64) COMMENT 'When the user left the team, ms since epoch (UTC); NULL = a member',
    updated_at DateTime('UTC') COMMENT 'When the change this row holds was made, UTC, whole seconds',
    updated_at_ms UInt64 COMMENT 'When the change this row holds was made, ms since epoch (UTC)',
    version UInt64 COMMENT 'Config-topic offset of the last event folded into this row: the highest wins'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, user_id);

ALTER TABLE keys ADD COLUMN team_id String DEFAULT '' AFTER user_id;

ALTER TABLE keys COMMENT COLUMN team_id 'Team that owns the key, empty when it belongs to no team (a service key has a team and no user)';

ALTER TABLE keys ADD COLUMN tags Array(String) AFTER team_id;

ALTER TABLE keys COMMENT COLUMN tags 'Default tags added to every request of the key, each name=value, after its team''s';
