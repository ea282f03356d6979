/**
 * The console's reads of the analytics store: the consumption log (filtered, paginated, one
 * request in detail) and the spend dashboard, over `consumption_log FINAL` and `billing_lines FINAL`
 * (schemas/analytics/migrations; both sorted by time first since 006 and 007, so every filter
 * carries its time range on `occurred_at`), and spend by team, tag and end user (017). Reads of the spend_*_day tables (008) must aggregate
 * with `sum(...) GROUP BY`: the dashboard here sums consumption_log instead, because its range is
 * in ms, not days. Every value is rendered with `sqlLiteral`; every statement runs
 * on ClickHouse 18.16 and chdb alike (no query parameters, `LIMIT offset, n`, no alias equal to a
 * column name inside an aggregate). Money comes back as exact decimal text (`toString`).
 */
import { sqlLiteral, type AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES } from '../../schemas/analytics/tables.ts';

/** Filters of the consumption log; every field optional. Times in ms since epoch. */
export interface UsageFilter {
  readonly fromMs: number;
  readonly toMs: number;
  readonly keyId?: string;
  readonly userId?: string;
  /** Requests of keys of this team. */
  readonly teamId?: string;
  readonly model?: string;
  readonly channelId?: string;
  /** completed | failed | cancelled */
  readonly status?: string;
}

/** One consumption-log row as the console shows it (CONSOLE-API.md `UsageRow`). */
export interface UsageRow {
  readonly eventId: string;
  readonly requestId: string;
  /** ISO-8601 */
  readonly occurredAt: string;
  readonly keyId: string;
  readonly userId: string | null;
  /** The key's team; null when none. */
  readonly teamId: string | null;
  /** The end user the request named; null when none. */
  readonly endUserId: string | null;
  /** The request's `name=value` tags. */
  readonly tags: string[];
  readonly model: string;
  readonly upstreamModel: string | null;
  readonly channelId: string | null;
  readonly provider: string | null;
  readonly clientFormat: string;
  readonly stream: boolean;
  readonly status: string;
  readonly errorKind: string | null;
  readonly httpStatus: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  /** reported | estimated | partial */
  readonly usageSource: string;
  /** USD, exact decimal text */
  readonly costUsd: string;
  readonly latencyMs: number;
  readonly ttfbMs: number | null;
  readonly attempts: number;
}

/** The spend dashboard (CONSOLE-API.md `GET /spend`). Money in USD decimal text. */
export interface SpendSummary {
  readonly totals: {
    readonly requests: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly costUsd: string;
    readonly estimatedRequests: number;
  };
  readonly daily: ReadonlyArray<{
    readonly day: string;
    readonly model: string;
    readonly costUsd: string;
    readonly requests: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
  }>;
  readonly topKeys: ReadonlyArray<{ readonly keyId: string; readonly costUsd: string; readonly requests: number }>;
  readonly topModels: ReadonlyArray<{ readonly model: string; readonly costUsd: string; readonly requests: number }>;
  readonly usageSources: ReadonlyArray<{ readonly source: string; readonly requests: number }>;
}

const ROW_COLUMNS = [
  'event_id',
  'request_id',
  'toString(occurred_at_ms) AS at_ms',
  'key_id',
  'user_id',
  'team_id',
  'end_user_id',
  "arrayStringConcat(tags, ',') AS tag_list",
  'model',
  'upstream_model',
  'channel_id',
  'provider',
  'client_format',
  'stream',
  'status',
  'error_kind',
  'http_status',
  'toString(input_tokens) AS in_tok',
  'toString(cached_input_tokens) AS cached_tok',
  'toString(cache_write_tokens) AS cache_write_tok',
  'toString(output_tokens) AS out_tok',
  'toString(reasoning_tokens) AS reasoning_tok',
  'usage_source',
  'toString(cost_usd) AS cost',
  'toString(latency_ms) AS latency',
  'toString(ttfb_ms) AS ttfb',
  'attempts',
].join(', ');

/** Largest value of a ClickHouse DateTime (UInt32 seconds). */
const MAX_DATETIME_SECONDS = 4_294_967_295;

/**
 * The WHERE clause of `filter` over consumption_log or billing_lines. The exact time condition is
 * on `occurred_at_ms` (ms); it comes with the same range, widened to whole seconds, on
 * `occurred_at` (seconds, = floor(occurred_at_ms / 1000)), which the engines can match against
 * the partition key `toYYYYMM(occurred_at)` and the sorting key `toDate(occurred_at), …`
 * (migration 006) to skip the parts and granules outside the range.
 */
export function usageWhere(filter: UsageFilter, options: { withStatus?: boolean } = {}): string {
  const fromMs = Math.floor(filter.fromMs);
  const toMs = Math.floor(filter.toMs);
  const seconds = (ms: number) => Math.min(MAX_DATETIME_SECONDS, Math.max(0, Math.floor(ms / 1000)));
  const parts = [
    `occurred_at >= toDateTime(${sqlLiteral(seconds(fromMs))})`,
    `occurred_at <= toDateTime(${sqlLiteral(seconds(toMs))})`,
    `occurred_at_ms >= ${sqlLiteral(fromMs)}`,
    `occurred_at_ms < ${sqlLiteral(toMs)}`,
  ];
  const equal = (column: string, value: string | undefined) =>
    value !== undefined && parts.push(`${column} = ${sqlLiteral(value)}`);
  equal('key_id', filter.keyId);
  equal('user_id', filter.userId);
  equal('team_id', filter.teamId);
  equal('model', filter.model);
  equal('channel_id', filter.channelId);
  if (options.withStatus !== false) equal('status', filter.status);
  return parts.join(' AND ');
}

/**
 * One page of the consumption log, newest first, and the number of matching rows.
 * @throws whatever the analytics store throws (the route answers 503).
 */
export async function queryUsagePage(
  store: AnalyticsStore,
  filter: UsageFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: UsageRow[]; total: number }> {
  const where = usageWhere(filter);
  const [rows, counted] = await Promise.all([
    store.query<Record<string, unknown>>(
      `SELECT ${ROW_COLUMNS} FROM ${TABLES.consumptionLog} FINAL WHERE ${where} ORDER BY occurred_at_ms DESC, event_id LIMIT ${page.offset}, ${page.limit}`,
    ),
    store.query<{ total: string }>(
      `SELECT toString(count()) AS total FROM ${TABLES.consumptionLog} FINAL WHERE ${where}`,
    ),
  ]);
  return { rows: rows.map(toUsageRow), total: Number(counted[0]?.total ?? 0) };
}

/** One request's consumption-log row and billing line (undefined row when unknown). */
export async function queryUsageDetail(
  store: AnalyticsStore,
  requestId: string,
): Promise<{ row: UsageRow | undefined; billing: Record<string, unknown> | null }> {
  const id = sqlLiteral(requestId);
  const [rows, billing] = await Promise.all([
    store.query<Record<string, unknown>>(
      `SELECT ${ROW_COLUMNS} FROM ${TABLES.consumptionLog} FINAL WHERE request_id = ${id} ORDER BY occurred_at_ms DESC LIMIT 1`,
    ),
    store.query<Record<string, unknown>>(
      `SELECT event_id, upstream_model, channel_id, provider, usage_source, toString(cost_usd) AS cost, price_model, price_channel, toString(price_effective_from_ms) AS price_from_ms, ` +
        `toString(input_per_mtok) AS input_price, toString(output_per_mtok) AS output_price, toString(cache_read_per_mtok) AS cache_read_price, toString(cache_write_per_mtok) AS cache_write_price, priced ` +
        `FROM ${TABLES.billingLines} FINAL WHERE request_id = ${id} LIMIT 1`,
    ),
  ]);
  const line = billing[0];
  return {
    row: rows[0] ? toUsageRow(rows[0]) : undefined,
    billing: line
      ? {
          eventId: line.event_id,
          upstreamModel: line.upstream_model,
          channelId: line.channel_id,
          provider: line.provider,
          usageSource: line.usage_source,
          costUsd: normalizeUsd(line.cost),
          priced: Number(line.priced) === 1,
          priceModel: line.price_model || null,
          priceChannel: line.price_channel || null,
          priceEffectiveFrom: Number(line.priced) === 1 ? new Date(Number(line.price_from_ms)).toISOString() : null,
          inputPerMTok: normalizeUsd(line.input_price),
          outputPerMTok: normalizeUsd(line.output_price),
          cacheReadPerMTok: normalizeUsd(line.cache_read_price),
          cacheWritePerMTok: normalizeUsd(line.cache_write_price),
        }
      : null,
  };
}

/** The spend dashboard over the consumption log for `filter` (status is ignored: failures cost what they cost). */
export async function querySpendSummary(store: AnalyticsStore, filter: UsageFilter): Promise<SpendSummary> {
  const where = usageWhere(filter, { withStatus: false });
  const from = `FROM ${TABLES.consumptionLog} FINAL WHERE ${where}`;
  const sums = 'toString(sum(cost_usd)) AS cost_sum, toString(count()) AS request_count';
  const [totals, daily, keys, models, sources] = await Promise.all([
    store.query<Record<string, string>>(
      `SELECT ${sums}, toString(sum(input_tokens)) AS in_sum, toString(sum(output_tokens)) AS out_sum, toString(countIf(usage_source = 'estimated')) AS estimated ${from}`,
    ),
    store.query<Record<string, string>>(
      `SELECT toString(toDate(occurred_at)) AS day_text, model, ${sums}, toString(sum(input_tokens)) AS in_sum, toString(sum(output_tokens)) AS out_sum ${from} GROUP BY day_text, model ORDER BY day_text, model`,
    ),
    store.query<Record<string, string>>(
      `SELECT key_id, ${sums} ${from} GROUP BY key_id ORDER BY sum(cost_usd) DESC, count() DESC, key_id LIMIT 10`,
    ),
    store.query<Record<string, string>>(
      `SELECT model, ${sums} ${from} GROUP BY model ORDER BY sum(cost_usd) DESC, count() DESC, model LIMIT 10`,
    ),
    store.query<Record<string, string>>(
      `SELECT usage_source, ${sums} ${from} GROUP BY usage_source ORDER BY usage_source`,
    ),
  ]);
  const total = totals[0] ?? {};
  return {
    totals: {
      requests: Number(total.request_count ?? 0),
      inputTokens: Number(total.in_sum ?? 0),
      outputTokens: Number(total.out_sum ?? 0),
      costUsd: normalizeUsd(total.cost_sum),
      estimatedRequests: Number(total.estimated ?? 0),
    },
    daily: daily.map((r) => ({
      day: String(r.day_text),
      model: String(r.model),
      costUsd: normalizeUsd(r.cost_sum),
      requests: Number(r.request_count),
      inputTokens: Number(r.in_sum),
      outputTokens: Number(r.out_sum),
    })),
    topKeys: keys.map((r) => ({
      keyId: String(r.key_id),
      costUsd: normalizeUsd(r.cost_sum),
      requests: Number(r.request_count),
    })),
    topModels: models.map((r) => ({
      model: String(r.model),
      costUsd: normalizeUsd(r.cost_sum),
      requests: Number(r.request_count),
    })),
    usageSources: sources.map((r) => ({ source: String(r.usage_source), requests: Number(r.request_count) })),
  };
}

/** Spend of one team, tag or end user over a range of days. Money in USD decimal text. */
export interface AttributedSpend {
  readonly costUsd: string;
  readonly requests: number;
  /** input + output tokens */
  readonly tokens: number;
}

/**
 * Spend by whom it was for (CONSOLE-API.md `GET /spend/attribution`): per team, per tag (a request
 * with two tags counts under both) and per end user, the 50 largest of each, and per day and team.
 */
export interface AttributionSpend {
  readonly byTeam: ReadonlyArray<AttributedSpend & { readonly teamId: string }>;
  readonly byTag: ReadonlyArray<AttributedSpend & { readonly tag: string }>;
  readonly byEndUser: ReadonlyArray<AttributedSpend & { readonly endUserId: string }>;
  readonly dailyByTeam: ReadonlyArray<{ readonly day: string; readonly teamId: string; readonly costUsd: string }>;
}

/** The days (UTC dates `YYYY-MM-DD`, both included) and, optionally, the only teams to count. */
export interface AttributionFilter {
  readonly fromDay: string;
  readonly toDay: string;
  /** Count only requests of keys of these teams; undefined = everything (admins). */
  readonly teamIds?: ReadonlyArray<string>;
}

/** Rows per breakdown. */
const ATTRIBUTION_LIMIT = 50;

/**
 * Spend by team, tag and end user over whole UTC days. Without `teamIds` it reads the summing
 * tables spend_by_team_day, spend_by_tag_day and spend_by_end_user_day (migration 017: always
 * `sum(...) GROUP BY`); with them, billing_lines FINAL narrowed to those teams (the summing tables
 * do not say which team a tag's or end user's spend came from). An empty `teamIds` reads nothing.
 * @throws whatever the analytics store throws (the route answers 503).
 */
export async function queryAttributionSpend(
  store: AnalyticsStore,
  filter: AttributionFilter,
): Promise<AttributionSpend> {
  if (filter.teamIds?.length === 0) return { byTeam: [], byTag: [], byEndUser: [], dailyByTeam: [] };
  const days = `day >= toDate(${sqlLiteral(filter.fromDay)}) AND day <= toDate(${sqlLiteral(filter.toDay)})`;
  const cost = 'toString(sum(cost_usd)) AS cost_sum';
  const order = `ORDER BY sum(cost_usd) DESC`;
  let statements: [string, string, string, string];
  if (filter.teamIds === undefined) {
    const sums = `${cost}, toString(sum(requests)) AS request_sum, toString(sum(tokens)) AS token_sum`;
    statements = [
      `SELECT team_id AS group_key, ${sums} FROM ${TABLES.spendByTeamDay} WHERE ${days} GROUP BY team_id ${order}, team_id LIMIT ${ATTRIBUTION_LIMIT}`,
      `SELECT tag AS group_key, ${sums} FROM ${TABLES.spendByTagDay} WHERE ${days} GROUP BY tag ${order}, tag LIMIT ${ATTRIBUTION_LIMIT}`,
      `SELECT end_user_id AS group_key, ${sums} FROM ${TABLES.spendByEndUserDay} WHERE ${days} GROUP BY end_user_id ${order}, end_user_id LIMIT ${ATTRIBUTION_LIMIT}`,
      `SELECT toString(day) AS day_text, team_id AS group_key, ${cost} FROM ${TABLES.spendByTeamDay} WHERE ${days} GROUP BY day, team_id ORDER BY day, team_id`,
    ];
  } else {
    const sums = `${cost}, toString(count()) AS request_sum, toString(sum(input_tokens + output_tokens)) AS token_sum`;
    const lines = `${TABLES.billingLines} FINAL`;
    const where = `${days} AND team_id IN (${filter.teamIds.map((id) => sqlLiteral(id)).join(', ')})`;
    statements = [
      `SELECT team_id AS group_key, ${sums} FROM ${lines} WHERE ${where} GROUP BY team_id ${order}, team_id LIMIT ${ATTRIBUTION_LIMIT}`,
      `SELECT tag AS group_key, ${sums} FROM ${lines} ARRAY JOIN tags AS tag WHERE ${where} GROUP BY tag ${order}, tag LIMIT ${ATTRIBUTION_LIMIT}`,
      `SELECT end_user_id AS group_key, ${sums} FROM ${lines} WHERE ${where} AND end_user_id != '' GROUP BY end_user_id ${order}, end_user_id LIMIT ${ATTRIBUTION_LIMIT}`,
      `SELECT toString(day) AS day_text, team_id AS group_key, ${cost} FROM ${lines} WHERE ${where} GROUP BY day, team_id ORDER BY day, team_id`,
    ];
  }
  const [teams, tags, endUsers, daily] = await Promise.all(
    statements.map((sql) => store.query<Record<string, string>>(sql)),
  );
  const spend = (r: Record<string, string>): AttributedSpend => ({
    costUsd: normalizeUsd(r.cost_sum),
    requests: Number(r.request_sum ?? 0),
    tokens: Number(r.token_sum ?? 0),
  });
  return {
    byTeam: teams!.map((r) => ({ teamId: String(r.group_key), ...spend(r) })),
    byTag: tags!.map((r) => ({ tag: String(r.group_key), ...spend(r) })),
    byEndUser: endUsers!.map((r) => ({ endUserId: String(r.group_key), ...spend(r) })),
    dailyByTeam: daily!.map((r) => ({
      day: String(r.day_text),
      teamId: String(r.group_key),
      costUsd: normalizeUsd(r.cost_sum),
    })),
  };
}

/** Most recent request time per key (ms since epoch), for the keys list's "last used". */
export async function queryLastUsed(
  store: AnalyticsStore,
  keyIds: ReadonlyArray<string>,
): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const rows = await store.query<{ key_id: string; last_ms: string }>(
    `SELECT key_id, toString(max(occurred_at_ms)) AS last_ms FROM ${TABLES.consumptionLog} WHERE key_id IN (${keyIds.map((id) => sqlLiteral(id)).join(', ')}) GROUP BY key_id`,
  );
  return new Map(rows.map((r) => [r.key_id, Number(r.last_ms)]));
}

/** Exact decimal text without trailing zeros (`1.500000000` → `1.5`, `0E-9`/'' → `0`). */
export function normalizeUsd(text: unknown): string {
  const value = typeof text === 'string' && /^-?\d+(\.\d+)?$/.test(text) ? text : '0';
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

function toUsageRow(r: Record<string, unknown>): UsageRow {
  const text = (value: unknown): string =>
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean'
        ? String(value)
        : '';
  const optional = (value: unknown) => (text(value) === '' ? null : text(value));
  const ttfb = r.ttfb === null || r.ttfb === undefined || r.ttfb === '' || r.ttfb === '\\N' ? null : Number(r.ttfb);
  return {
    eventId: text(r.event_id),
    requestId: text(r.request_id),
    occurredAt: new Date(Number(r.at_ms)).toISOString(),
    keyId: text(r.key_id),
    userId: optional(r.user_id),
    teamId: optional(r.team_id),
    endUserId: optional(r.end_user_id),
    tags: text(r.tag_list) === '' ? [] : text(r.tag_list).split(','),
    model: text(r.model),
    upstreamModel: optional(r.upstream_model),
    channelId: optional(r.channel_id),
    provider: optional(r.provider),
    clientFormat: text(r.client_format),
    stream: Number(r.stream) === 1,
    status: text(r.status),
    errorKind: optional(r.error_kind),
    httpStatus: Number(r.http_status),
    inputTokens: Number(r.in_tok),
    cachedInputTokens: Number(r.cached_tok),
    cacheWriteTokens: Number(r.cache_write_tok),
    outputTokens: Number(r.out_tok),
    reasoningTokens: Number(r.reasoning_tok),
    usageSource: text(r.usage_source),
    costUsd: normalizeUsd(r.cost),
    latencyMs: Number(r.latency),
    ttfbMs: Number.isNaN(ttfb) ? null : ttfb,
    attempts: Number(r.attempts),
  };
}

/**
 * Prompt-cache economics of one group (or all) over a range of days: tokens, the hit rate
 * (cached ÷ input tokens, 0 without input) and money in USD decimal text.
 */
export interface CacheEconomics {
  readonly requests: number;
  /** input tokens, cached included */
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  /** cache writes, both lifetimes */
  readonly cacheWriteTokens: number;
  /** the part of cacheWriteTokens written to the 1-hour cache */
  readonly cacheWrite1hTokens: number;
  /** cachedInputTokens ÷ inputTokens, 0..1 */
  readonly hitRate: number;
  readonly costUsd: string;
  /** cache reads × (input − cache-read price) */
  readonly savingsUsd: string;
}

/**
 * Cache economics per channel, upstream model, key and team (CONSOLE-API.md `GET /spend/cache`),
 * the 50 largest of each by savings, and the totals.
 */
export interface CacheEconomicsReport {
  readonly totals: CacheEconomics;
  readonly byChannel: ReadonlyArray<CacheEconomics & { readonly channelId: string }>;
  readonly byModel: ReadonlyArray<CacheEconomics & { readonly upstreamModel: string }>;
  readonly byKey: ReadonlyArray<CacheEconomics & { readonly keyId: string }>;
  /** teamId '' = keys of no team */
  readonly byTeam: ReadonlyArray<CacheEconomics & { readonly teamId: string }>;
}

/** The days (UTC dates, both included) and, optionally, the only teams and keys to count. */
export interface CacheEconomicsFilter {
  readonly fromDay: string;
  readonly toDay: string;
  /** Count only rows of these teams or of these keys; both undefined = everything (admins). */
  readonly teamIds?: ReadonlyArray<string>;
  readonly keyIds?: ReadonlyArray<string>;
}

const CACHE_GROUPS = [
  ['channel_id', 'channelId'],
  ['upstream_model', 'upstreamModel'],
  ['key_id', 'keyId'],
  ['team_id', 'teamId'],
] as const;

/**
 * Cache economics over whole UTC days from the summing table cache_by_channel_model_day
 * (migration 023: always `sum(...) GROUP BY`), narrowed, when `teamIds` or `keyIds` is given, to
 * rows of those teams or those keys (both empty: nothing). The hit rate is computed from the sums.
 * @throws whatever the analytics store throws (the route answers 503).
 */
export async function queryCacheEconomics(
  store: AnalyticsStore,
  filter: CacheEconomicsFilter,
): Promise<CacheEconomicsReport> {
  const narrowed = filter.teamIds !== undefined || filter.keyIds !== undefined;
  const teams = filter.teamIds ?? [];
  const keys = filter.keyIds ?? [];
  const empty: CacheEconomicsReport = {
    totals: cacheEconomicsOf({}),
    byChannel: [],
    byModel: [],
    byKey: [],
    byTeam: [],
  };
  if (narrowed && teams.length === 0 && keys.length === 0) return empty;
  const inList = (column: string, values: ReadonlyArray<string>) =>
    values.length === 0 ? [] : [`${column} IN (${values.map((v) => sqlLiteral(v)).join(', ')})`];
  const who = narrowed ? ` AND (${[...inList('team_id', teams), ...inList('key_id', keys)].join(' OR ')})` : '';
  const where = `day >= toDate(${sqlLiteral(filter.fromDay)}) AND day <= toDate(${sqlLiteral(filter.toDay)})${who}`;
  const sums =
    'toString(sum(requests)) AS request_sum, toString(sum(input_tokens)) AS input_sum, ' +
    'toString(sum(cached_input_tokens)) AS cached_sum, toString(sum(cache_write_tokens)) AS write_sum, ' +
    'toString(sum(cache_write_1h_tokens)) AS write_1h_sum, toString(sum(cost_usd)) AS cost_sum, ' +
    'toString(sum(cache_savings_usd)) AS savings_sum';
  const table = TABLES.cacheByChannelModelDay;
  const [totals, ...groups] = await Promise.all([
    store.query<Record<string, string>>(`SELECT ${sums} FROM ${table} WHERE ${where}`),
    ...CACHE_GROUPS.map(([column]) =>
      store.query<Record<string, string>>(
        `SELECT ${column} AS group_key, ${sums} FROM ${table} WHERE ${where} GROUP BY ${column} ` +
          `ORDER BY sum(cache_savings_usd) DESC, sum(cached_input_tokens) DESC, ${column} LIMIT ${ATTRIBUTION_LIMIT}`,
      ),
    ),
  ]);
  const rowsOf = <F extends string>(index: number, field: F) =>
    groups[index]!.map(
      (r) => ({ [field]: String(r.group_key), ...cacheEconomicsOf(r) }) as CacheEconomics & Record<F, string>,
    );
  return {
    totals: cacheEconomicsOf(totals[0] ?? {}),
    byChannel: rowsOf(0, 'channelId'),
    byModel: rowsOf(1, 'upstreamModel'),
    byKey: rowsOf(2, 'keyId'),
    byTeam: rowsOf(3, 'teamId'),
  };
}

function cacheEconomicsOf(r: Record<string, string | undefined>): CacheEconomics {
  const inputTokens = Number(r.input_sum ?? 0);
  const cachedInputTokens = Number(r.cached_sum ?? 0);
  return {
    requests: Number(r.request_sum ?? 0),
    inputTokens,
    cachedInputTokens,
    cacheWriteTokens: Number(r.write_sum ?? 0),
    cacheWrite1hTokens: Number(r.write_1h_sum ?? 0),
    hitRate: inputTokens > 0 ? cachedInputTokens / inputTokens : 0,
    costUsd: normalizeUsd(r.cost_sum),
    savingsUsd: normalizeUsd(r.savings_sum),
  };
}
