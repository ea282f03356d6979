-- How each request was routed, from the RequestCompleted (v8) event: the models tried when the
-- requested model's fallback chain was followed (model_chain, the requested model first; empty
-- when only it was tried), the fallback model that answered (answered_model, empty when the
-- requested model answered or none did), how prompt-cache affinity ended (affinity: hit, moved,
-- new, or empty when off, unavailable or not served), and the key-pool credential of the channel's
-- last attempt (credential_id, its id, never the secret; empty for a channel with one credential)
-- with the rotations between credentials (credential_rotations). Rows written before this
-- migration read the empty defaults, as do events of older gateways. Every default is the type's
-- own default value, so ClickHouse 18.16 reading an old part with FINAL reads the same.
-- A plain ADD COLUMN with a DEFAULT runs on ClickHouse 18.16 and modern engines alike (no IF NOT
-- EXISTS: 18.16 cannot parse it; schema_migrations keeps a statement from running twice). 18.16
-- drops a COMMENT given in ADD COLUMN, so each comment is its own statement.
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#add-column
ALTER TABLE consumption_log ADD COLUMN model_chain Array(String) AFTER model;
ALTER TABLE consumption_log COMMENT COLUMN model_chain 'Every model tried in order, the requested one first, when its fallback chain was followed; empty when only the requested model was tried';
ALTER TABLE consumption_log ADD COLUMN answered_model String DEFAULT '' AFTER model_chain;
ALTER TABLE consumption_log COMMENT COLUMN answered_model 'The fallback model that answered; empty when the requested model answered or none did';
ALTER TABLE consumption_log ADD COLUMN affinity String DEFAULT '' AFTER attempts;
ALTER TABLE consumption_log COMMENT COLUMN affinity 'Prompt-cache affinity: hit (served by the pinned channel), moved (pinned elsewhere), new (first pin), empty (off, unavailable or not served)';
ALTER TABLE consumption_log ADD COLUMN credential_id String DEFAULT '' AFTER channel_id;
ALTER TABLE consumption_log COMMENT COLUMN credential_id 'Key-pool credential of the channel''s last attempt (its id, never the secret); empty for a channel with one credential';
ALTER TABLE consumption_log ADD COLUMN credential_rotations UInt16 DEFAULT 0 AFTER affinity;
ALTER TABLE consumption_log COMMENT COLUMN credential_rotations 'Times a pool credential was refused (429, 401, 403) and the channel was tried again with the next one';
