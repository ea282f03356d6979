-- What each request asked for, from the RequestCompleted (v7) and UsageRecorded (v4) events'
-- `operation`: 'generation' (chat completions, messages, responses, generateContent) or
-- 'embedding' (/v1/embeddings, :embedContent, :batchEmbedContents; billed by input tokens at the
-- input price, no output). Rows written before this migration, and events of older gateways,
-- read 'generation': every request before embeddings existed was one.
-- An Enum8 whose first and lowest value is 'generation': rows of parts written before the column
-- existed read 'generation' whether an engine fills them from the DEFAULT or, as ClickHouse 18.16
-- does for some parts read with FINAL, from the type's default value (a String would read '').
-- A plain ADD COLUMN with a DEFAULT runs on ClickHouse 18.16 and modern engines alike (no IF NOT
-- EXISTS: 18.16 cannot parse it; schema_migrations keeps a statement from running twice). 18.16
-- drops a COMMENT given in ADD COLUMN, so each comment is its own statement. The materialized
-- views of 008 and 017 select their columns by name, so they keep reading billing_lines as before.
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#add-column
-- https://clickhouse.com/docs/sql-reference/statements/alter/column#comment-column
ALTER TABLE consumption_log ADD COLUMN operation Enum8('generation' = 1, 'embedding' = 2) DEFAULT 'generation' AFTER client_format;
ALTER TABLE consumption_log COMMENT COLUMN operation 'What the request asked for: generation or embedding';
ALTER TABLE billing_lines ADD COLUMN operation Enum8('generation' = 1, 'embedding' = 2) DEFAULT 'generation' AFTER provider;
ALTER TABLE billing_lines COMMENT COLUMN operation 'What the usage was for: generation or embedding (input tokens only, at the input price)';
