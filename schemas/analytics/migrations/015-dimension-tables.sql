-- Dimension tables: the control plane's users, keys and channels as one row each, so spend and
-- requests join to names, owners, limits and status in plain SQL. Kept up by the dimensions
-- consumer (consumers/dimensions/), which folds the config topic (tollgate.config) into full rows:
-- every row is the entity after one event, and `version` is that event's offset on the config
-- topic (one partition, so later changes have higher offsets). ReplacingMergeTree(version) keeps
-- the highest version per id when parts merge: read with FINAL (or argMax(column, version)).
-- A redelivered or replayed event writes the same row with the same version, so nothing changes.
-- No secret is ever a column: no key material or digest, no channel credential, no password hash.
-- The control plane has no teams: a user is the owner of keys. Money: Decimal64(9) USD.
-- https://clickhouse.com/docs/engines/table-engines/mergetree-family/replacingmergetree
CREATE TABLE IF NOT EXISTS users
(
    user_id String COMMENT 'User id: user_id of consumption_log, billing_lines and keys',
    name String COMMENT 'Display name',
    role String COMMENT 'Console role: admin or user',
    login String COMMENT 'Console sign-in name, empty when the user has none (never the password or its hash)',
    status String COMMENT 'active or disabled',
    rpm Nullable(UInt64) COMMENT 'Requests per minute over all the user''s keys, NULL = unlimited',
    tpm Nullable(UInt64) COMMENT 'Tokens per minute over all the user''s keys (tokens), NULL = unlimited',
    quota_usd Nullable(Decimal64(9)) COMMENT 'Spend quota over all the user''s keys, USD with 9 decimals, NULL = unlimited',
    created_at DateTime('UTC') COMMENT 'When the user was created, UTC, whole seconds',
    created_at_ms UInt64 COMMENT 'When the user was created, ms since epoch (UTC)',
    updated_at DateTime('UTC') COMMENT 'When the change this row holds was made, UTC, whole seconds',
    updated_at_ms UInt64 COMMENT 'When the change this row holds was made, ms since epoch (UTC)',
    version UInt64 COMMENT 'Config-topic offset of the last event folded into this row: the highest wins'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY user_id;

CREATE TABLE IF NOT EXISTS keys
(
    key_id String COMMENT 'API key id: key_id of consumption_log, billing_lines and failovers (never the key itself)',
    public_id String COMMENT 'Public part shown in listings (sk-<public_id>...), not a secret',
    name String COMMENT 'Display name',
    user_id String COMMENT 'User who owns the key, empty when it belongs to no user',
    status String COMMENT 'active, disabled, or revoked (revoked_at says from when)',
    rpm Nullable(UInt64) COMMENT 'Requests per minute, NULL = unlimited',
    tpm Nullable(UInt64) COMMENT 'Tokens per minute (tokens), NULL = unlimited',
    quota_usd Nullable(Decimal64(9)) COMMENT 'Spend quota, USD with 9 decimals, NULL = unlimited',
    expires_at_ms Nullable(UInt64) COMMENT 'When the key expires, ms since epoch (UTC), NULL = never',
    created_at DateTime('UTC') COMMENT 'When the key was created, UTC, whole seconds',
    created_at_ms UInt64 COMMENT 'When the key was created, ms since epoch (UTC)',
    revoked_at Nullable(DateTime('UTC')) COMMENT 'When the revocation takes effect (later than the revocation for a rotation''s grace period), UTC, whole seconds; NULL = not revoked',
    revoked_at_ms Nullable(UInt64) COMMENT 'When the revocation takes effect, ms since epoch (UTC); NULL = not revoked',
    updated_at DateTime('UTC') COMMENT 'When the change this row holds was made, UTC, whole seconds',
    updated_at_ms UInt64 COMMENT 'When the change this row holds was made, ms since epoch (UTC)',
    version UInt64 COMMENT 'Config-topic offset of the last event folded into this row: the highest wins'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY key_id;

CREATE TABLE IF NOT EXISTS channels
(
    channel_id String COMMENT 'Channel id (its name): channel_id of consumption_log, billing_lines and failovers',
    provider String COMMENT 'Provider preset, e.g. openai, anthropic, mock',
    protocol String COMMENT 'Upstream protocol, empty for the provider''s default',
    models Array(String) COMMENT 'Client model names the channel serves',
    priority Int32 COMMENT 'Routing priority (lower is tried first)',
    weight Float64 COMMENT 'Routing weight among channels of the same priority',
    status String COMMENT 'active, disabled or removed (removed_at says when)',
    rpm Nullable(UInt64) COMMENT 'Requests per minute the channel accepts, NULL = unlimited',
    tpm Nullable(UInt64) COMMENT 'Tokens per minute the channel accepts (tokens), NULL = unlimited',
    timeout_ms UInt64 COMMENT 'Upstream timeout to response headers (ms)',
    created_at DateTime('UTC') COMMENT 'When the channel was first configured, UTC, whole seconds',
    created_at_ms UInt64 COMMENT 'When the channel was first configured, ms since epoch (UTC)',
    removed_at Nullable(DateTime('UTC')) COMMENT 'When the channel was removed, UTC, whole seconds; NULL = configured',
    removed_at_ms Nullable(UInt64) COMMENT 'When the channel was removed, ms since epoch (UTC); NULL = configured',
    updated_at DateTime('UTC') COMMENT 'When the change this row holds was made, UTC, whole seconds',
    updated_at_ms UInt64 COMMENT 'When the change this row holds was made, ms since epoch (UTC)',
    version UInt64 COMMENT 'Config-topic offset of the last event folded into this row: the highest wins'
)
ENGINE = ReplacingMergeTree(version)
ORDER BY channel_id;
