/**
 * The ledger's pure projection: one RequestCompleted → one `consumption_log` row
 * (schemas/analytics/migrations/001-consumption-log.sql, ingested_at_ms from 005,
 * upstream_request_id from 012, day, started_at and started_at_ms from 013, team_id,
 * end_user_id and tags from 016, operation from 020, the routing columns from 021), costed with
 * the price book.
 */
import type { ConsumptionRow } from '../../schemas/analytics/tables.ts';
import type { Price } from '../../schemas/billing/price-book.ts';
import type { RequestCompleted } from '../../schemas/events/traffic-events.ts';
import { priceUsage } from '../billing/price-usage.ts';
import { requestAttributionColumns, tokenUsageColumns, trafficEventColumns } from '../traffic-row-columns.ts';

/** The row, its cost in nano-USD, and a warning when the request used tokens but had no price. */
export interface ConsumptionProjection {
  readonly row: ConsumptionRow;
  readonly costNanoUsd: bigint;
  readonly warning: string | null;
}

/**
 * Projects one request, written at `ingestedAt` (ms since epoch: the ledger's clock when it
 * builds the batch's insert, passed in so the projection stays pure).
 * cost_usd = costNanoUsd(usage, findPrice(prices, upstreamModel, channelId, occurredAt)), or 0 (with a warning if tokens were used) when there is no upstream
 * model or no price. Missing ids (the upstream request id too) become ''. An event without
 * startedAt (older than RequestCompleted v5) started latencyMs before it finished. Never throws.
 */
export function projectConsumptionRow(
  event: RequestCompleted,
  prices: ReadonlyArray<Price>,
  ingestedAt: number,
): ConsumptionProjection {
  const { usage } = event;
  const priced = priceUsage(
    prices,
    { ...usage, cacheWrite1hTokens: event.cacheWrite1hTokens },
    {
      upstreamModel: event.upstreamModel,
      channelId: event.channelId,
      at: event.occurredAt,
    },
  );
  const startedAtMs = Math.max(0, event.startedAt ?? event.occurredAt - event.latencyMs);
  const identity = trafficEventColumns(event);
  const attribution = requestAttributionColumns(event);
  const tokens = tokenUsageColumns(usage, priced.costNanoUsd);
  // Every column named in one literal, never spread in: V8 turns an object that had more than a
  // dozen properties copied into it one by one into a slow dictionary object, and a batch builds
  // hundreds of these rows.
  const row: ConsumptionRow = {
    event_id: identity.event_id,
    request_id: identity.request_id,
    occurred_at: identity.occurred_at,
    occurred_at_ms: identity.occurred_at_ms,
    day: identity.day,
    started_at_ms: startedAtMs,
    started_at: Math.floor(startedAtMs / 1000),
    key_id: attribution.key_id,
    user_id: attribution.user_id,
    team_id: attribution.team_id,
    end_user_id: attribution.end_user_id,
    tags: attribution.tags,
    model: attribution.model,
    upstream_model: attribution.upstream_model,
    channel_id: attribution.channel_id,
    provider: attribution.provider,
    client_format: event.clientFormat,
    operation: event.operation,
    stream: event.stream ? 1 : 0,
    pass_through: event.passThrough ? 1 : 0,
    status: event.status,
    error_kind: event.errorKind ?? '',
    http_status: event.httpStatus,
    input_tokens: tokens.input_tokens,
    cached_input_tokens: tokens.cached_input_tokens,
    cache_write_tokens: tokens.cache_write_tokens,
    output_tokens: tokens.output_tokens,
    reasoning_tokens: tokens.reasoning_tokens,
    usage_source: tokens.usage_source,
    cost_usd: tokens.cost_usd,
    latency_ms: event.latencyMs,
    ttfb_ms: event.ttfbMs,
    attempts: event.attempts,
    ingested_at_ms: ingestedAt,
    upstream_request_id: event.upstreamRequestId ?? '',
    model_chain: event.modelChain,
    answered_model: event.answeredModel ?? '',
    affinity: event.affinity,
    credential_id: event.credentialId ?? '',
    credential_rotations: Math.min(65_535, Math.max(0, event.credentialRotations)),
  };
  return { row, costNanoUsd: priced.costNanoUsd, warning: priced.warning };
}
