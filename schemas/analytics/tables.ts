/**
 * The ClickHouse tables the consumers write and the console and analysts read: their names, and
 * the rows the consumers insert (JSONEachRow; the DDL is in ./migrations, the analysts' queries
 * in analyst-queries.ts). SQL interpolates these names, never values: values go through
 * sqlLiteral (analytics-store.ts).
 */
import type { Decimal } from './analytics-store.ts';

/** Every table and view by name. */
export const TABLES = {
  /** One row per RequestCompleted (ledger consumer, migrations 001, 006, 013, 016, 020, 021). */
  consumptionLog: 'consumption_log',
  /** One row per UsageRecorded with the price it was billed at (billing consumer, 002, 007, 016, 020, 022). */
  billingLines: 'billing_lines',
  /** One row per FailoverOccurred (failovers consumer, 009, 014). */
  failovers: 'failovers',
  /** One row per control event, secrets removed (config-audit consumer, 010). */
  configAudit: 'config_audit',
  /** Dimension tables, one row per entity and version (dimensions consumer, 015; keys gain team_id and tags in 019). */
  users: 'users',
  keys: 'keys',
  channels: 'channels',
  /** Teams and their members as dimension tables, one row per team / (team, user) and version (dimensions consumer, 019). */
  teams: 'teams',
  teamMembers: 'team_members',
  /** Spend per day, summed by materialized views from billing_lines (008); read with sum() GROUP BY. */
  spendByKeyDay: 'spend_by_key_day',
  spendByUserDay: 'spend_by_user_day',
  spendByModelDay: 'spend_by_model_day',
  spendByChannelDay: 'spend_by_channel_day',
  /** Spend per day by team, end user and tag (one row per tag of a line), from billing_lines (017); read with sum() GROUP BY. */
  spendByTeamDay: 'spend_by_team_day',
  spendByEndUserDay: 'spend_by_end_user_day',
  spendByTagDay: 'spend_by_tag_day',
  /**
   * Prompt-cache economics per day, channel, upstream model, key and team: tokens, cost and cache
   * savings, from billing_lines (023); read with sum() GROUP BY.
   */
  cacheByChannelModelDay: 'cache_by_channel_model_day',
  /** One row per budget alert and webhook delivered to or given up on (alerts consumer, 018); read with FINAL. */
  alertDeliveries: 'alert_deliveries',
  /** The applied migration versions (infra/analytics/migrate.ts). */
  schemaMigrations: 'schema_migrations',
} as const;

/** The name of a table or view. */
export type TableName = (typeof TABLES)[keyof typeof TABLES];

/** The columns every table of one row per traffic event opens with: the event's identity and time. */
export type TrafficEventColumns = {
  event_id: string;
  request_id: string;
  /** seconds since epoch (DateTime, UTC) */
  occurred_at: number;
  /** ms since epoch */
  occurred_at_ms: number;
  /** UTC date of occurred_at, `YYYY-MM-DD` (in consumption_log from migration 013) */
  day: string;
};

/** Who asked for a request, who it was spent for, and what served it ('' where the event names nothing). */
export type RequestAttributionColumns = {
  key_id: string;
  /** '' when the key belongs to no user */
  user_id: string;
  /** the key's team, '' when it belongs to none (migration 016) */
  team_id: string;
  /** the end user the request named, '' when none (migration 016) */
  end_user_id: string;
  /** the request's tags, each `name=value`, one per name (migration 016) */
  tags: ReadonlyArray<string>;
  /** the model as the client asked for it */
  model: string;
  upstream_model: string;
  channel_id: string;
  provider: string;
};

/** The token counts of a request a channel served, their source, and its cost (USD as an exact Decimal). */
export type TokenUsageColumns = {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  usage_source: string;
  cost_usd: Decimal;
};

/** A `consumption_log` row as inserted (JSONEachRow). Times: seconds (occurred_at) and ms; tokens; cost in USD as an exact Decimal. */
export type ConsumptionRow = TrafficEventColumns &
  RequestAttributionColumns &
  TokenUsageColumns & {
    /** arrival, ms since epoch: the event's startedAt, else occurred_at_ms - latency_ms (migration 013) */
    started_at_ms: number;
    /** arrival, seconds since epoch (DateTime, UTC) (migration 013) */
    started_at: number;
    client_format: string;
    /** what the request asked for: `generation` or `embedding` (migration 020) */
    operation: string;
    stream: number;
    pass_through: number;
    status: string;
    error_kind: string;
    http_status: number;
    latency_ms: number;
    /** null when nothing was sent to the client */
    ttfb_ms: number | null;
    attempts: number;
    /** ms since epoch when the ledger built the insert holding this row (migration 005) */
    ingested_at_ms: number;
    /** The upstream's own id of the call (migration 012), '' when it sent none or the event predates it */
    upstream_request_id: string;
    /** every model tried, the requested one first, when its fallback chain was followed; [] otherwise (migration 021) */
    model_chain: ReadonlyArray<string>;
    /** the fallback model that answered, '' when the requested model answered or none did (migration 021) */
    answered_model: string;
    /** prompt-cache affinity: `hit`, `moved`, `new`, or '' (off, unavailable, not served) (migration 021) */
    affinity: string;
    /** the key-pool credential of the channel's last attempt, '' for a channel with one credential (migration 021) */
    credential_id: string;
    /** times a pool credential was refused and the channel tried again with the next (migration 021) */
    credential_rotations: number;
  };

/** A `billing_lines` row as inserted (JSONEachRow). Tokens; money as exact Decimals (USD, USD per million tokens). */
export type BillingLine = TrafficEventColumns &
  RequestAttributionColumns &
  TokenUsageColumns & {
    /** what the usage was for: `generation` or `embedding`, billed by input tokens alone (migration 020) */
    operation: string;
    /** The price entry used ('' / 0 when unpriced). */
    price_model: string;
    /** '' for an entry that applies to every channel */
    price_channel: string;
    price_effective_from_ms: number;
    input_per_mtok: Decimal;
    output_per_mtok: Decimal;
    cache_read_per_mtok: Decimal;
    cache_write_per_mtok: Decimal;
    /** the price of 1-hour cache writes, USD per million tokens (migration 022) */
    cache_write_1h_per_mtok: Decimal;
    /** the part of cache_write_tokens written to the 1-hour cache, tokens (migration 022) */
    cache_write_1h_tokens: number;
    /** what the cache reads saved against the input price, USD, never negative (migration 022) */
    cache_savings_usd: Decimal;
    /** 1 when a price applied, 0 when none did (cost 0) */
    priced: number;
  };

/**
 * A `cache_by_channel_model_day` row as read (migration 023): one partial sum per group; read with
 * sum() GROUP BY. Tokens; money in USD as Decimal128(9).
 */
export type CacheByChannelModelDayRow = {
  /** `YYYY-MM-DD`, UTC */
  day: string;
  channel_id: string;
  upstream_model: string;
  key_id: string;
  /** '' for keys of no team */
  team_id: string;
  requests: number;
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  cost_usd: Decimal;
  cache_savings_usd: Decimal;
};

/** A `failovers` row as inserted (JSONEachRow). Times: seconds (occurred_at), ms (occurred_at_ms, latency_ms, retry_after_ms). */
export type FailoverRow = TrafficEventColumns & {
  key_id: string;
  /** the model as the client asked for it */
  model: string;
  /** the channel that failed */
  channel_id: string;
  error_kind: string;
  /** HTTP status the upstream answered; null when it sent none */
  upstream_status: number | null;
  /** ms spent on the failed attempt (whole, ≥ 0) */
  latency_ms: number;
  /** ms the upstream asked to wait (Retry-After, whole, ≥ 0); null when it asked none */
  retry_after_ms: number | null;
  /** the channel tried next (a failover); null when none was left and the request failed here (migration 014) */
  next_channel_id: string | null;
};

/** A `config_audit` row as inserted (JSONEachRow). Times: seconds (occurred_at) and ms. */
export type ConfigAuditRow = {
  event_id: string;
  /** seconds since epoch (DateTime, UTC) */
  occurred_at: number;
  /** ms since epoch */
  occurred_at_ms: number;
  actor: string;
  event_type: string;
  entity_id: string;
  /** `changes` as a JSON object; bigint values as decimal strings */
  changes: string;
};

/**
 * The columns every dimension row (users, keys, channels: migration 015; teams, team_members: 019) ends with: when the
 * change it holds was made, and the config-topic offset of the last event folded into it.
 */
export type DimensionVersionColumns = {
  /** seconds since epoch (DateTime, UTC) */
  updated_at: number;
  /** ms since epoch */
  updated_at_ms: number;
  /** config-topic offset of the last event folded in: the highest wins (ReplacingMergeTree) */
  version: number;
};

/** A `users` row as inserted (JSONEachRow): never the password or its hash. Times: seconds and ms. */
export type UserRow = DimensionVersionColumns & {
  user_id: string;
  name: string;
  /** console role: admin or user */
  role: string;
  /** console sign-in name, '' when none */
  login: string;
  status: 'active' | 'disabled';
  /** requests per minute, null = unlimited */
  rpm: number | null;
  /** tokens per minute, null = unlimited */
  tpm: number | null;
  /** USD with 9 decimals, null = unlimited */
  quota_usd: Decimal | null;
  created_at: number;
  created_at_ms: number;
};

/** A `keys` row as inserted (JSONEachRow): never the key or its digest. Times: seconds and ms. */
export type KeyRow = DimensionVersionColumns & {
  key_id: string;
  public_id: string;
  name: string;
  /** '' when the key belongs to no user */
  user_id: string;
  /** the team owning the key, '' when none (migration 019) */
  team_id: string;
  /** the key's default tags, each `name=value` (migration 019) */
  tags: string[];
  status: 'active' | 'disabled' | 'revoked';
  rpm: number | null;
  tpm: number | null;
  quota_usd: Decimal | null;
  /** ms since epoch, null = never */
  expires_at_ms: number | null;
  created_at: number;
  created_at_ms: number;
  /** when the revocation takes effect; null = not revoked */
  revoked_at: number | null;
  revoked_at_ms: number | null;
};

/** A `channels` row as inserted (JSONEachRow): never its credential. Times: seconds and ms. */
export type ChannelRow = DimensionVersionColumns & {
  /** the channel's name */
  channel_id: string;
  provider: string;
  /** '' = the provider's default */
  protocol: string;
  models: string[];
  priority: number;
  weight: number;
  status: 'active' | 'disabled' | 'removed';
  rpm: number | null;
  tpm: number | null;
  /** upstream timeout to response headers, ms */
  timeout_ms: number;
  created_at: number;
  created_at_ms: number;
  /** null = configured */
  removed_at: number | null;
  removed_at_ms: number | null;
};

/** A `teams` row as inserted (JSONEachRow, migration 019). Times: seconds and ms. */
export type TeamRow = DimensionVersionColumns & {
  team_id: string;
  name: string;
  status: 'active' | 'disabled';
  /** the allowlist bounding the team's keys; [] = every model */
  models: string[];
  /** default tags of the team's requests, each `name=value` */
  tags: string[];
  /** requests / tokens per minute and per day, null = unlimited */
  rpm: number | null;
  tpm: number | null;
  rpd: number | null;
  tpd: number | null;
  created_at: number;
  created_at_ms: number;
};

/** A `team_members` row as inserted (JSONEachRow, migration 019): one per (team, user). Times: seconds and ms. */
export type TeamMemberRow = DimensionVersionColumns & {
  team_id: string;
  user_id: string;
  role: 'team_admin' | 'member';
  /** removed once the user left the team */
  status: 'active' | 'removed';
  /** when the current membership began */
  joined_at: number;
  joined_at_ms: number;
  /** null = a member */
  removed_at: number | null;
  removed_at_ms: number | null;
};

/** The whole-second columns of the dimension rows, each the floor of its `<name>_ms` twin divided by 1000. */
export const DIMENSION_SECOND_COLUMNS = {
  users: ['created_at', 'updated_at'],
  keys: ['created_at', 'revoked_at', 'updated_at'],
  channels: ['created_at', 'removed_at', 'updated_at'],
  teams: ['created_at', 'updated_at'],
  team_members: ['joined_at', 'removed_at', 'updated_at'],
} as const satisfies Record<'users' | 'keys' | 'channels' | 'teams' | 'team_members', ReadonlyArray<string>>;

/** A column of the row type `Row` (compile-time: SQL names a column the consumers write). */
export type ColumnOf<Row> = Extract<keyof Row, string>;

/** How the delivery of an alert to a webhook ended: a 2xx answer, or every attempt failed. */
export type AlertDeliveryOutcome = 'delivered' | 'failed';

/** An `alert_deliveries` row as inserted (JSONEachRow, migration 018). Times: seconds and ms since epoch. */
export type AlertDeliveryRow = {
  /** `<budget_id>@<window_start_ms>:<threshold_percent>` */
  alert_id: string;
  webhook_id: string;
  budget_id: string;
  /** 1..100 */
  threshold_percent: number;
  window_start: number;
  window_start_ms: number;
  delivered_at: number;
  /** the row version: the latest attempt wins */
  delivered_at_ms: number;
  /** HTTP attempts made, 0 when none could be (the secret could not be opened) */
  attempts: number;
  /** status of the last attempt, 0 when none came */
  http_status: number;
  outcome: AlertDeliveryOutcome;
};
