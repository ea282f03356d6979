/**
 * Billing's pure projection: one UsageRecorded → one `billing_lines` row
 * (schemas/analytics/migrations/002-billing-lines.sql; team_id, end_user_id and tags from 016,
 * operation from 020, the 1-hour cache writes, their price and the cache savings from 022)
 * carrying the price it was billed at. An embedding's usage has input tokens alone, so it costs
 * its input tokens at the input price (price-usage.ts).
 */
import { Decimal } from '../../schemas/analytics/analytics-store.ts';
import type { BillingLine } from '../../schemas/analytics/tables.ts';
import { cacheSavingsNanoUsd, type Price } from '../../schemas/billing/price-book.ts';
import type { UsageRecorded } from '../../schemas/events/traffic-events.ts';
import { priceUsage } from './price-usage.ts';
import { requestAttributionColumns, tokenUsageColumns, trafficEventColumns } from '../traffic-row-columns.ts';

/** The line, its cost in nano-USD (for the spend counters) and a warning when tokens went unpriced. */
export interface BillingProjection {
  readonly line: BillingLine;
  readonly costNanoUsd: bigint;
  readonly warning: string | null;
}

const ZERO = new Decimal(0n);

/**
 * Projects one usage event with the price in effect for its upstream model and channel at its
 * time (see price-usage.ts). Never throws.
 */
export function projectBillingLine(event: UsageRecorded, prices: ReadonlyArray<Price>): BillingProjection {
  const { price, costNanoUsd, warning } = priceUsage(prices, event, {
    upstreamModel: event.upstreamModel,
    channelId: event.channelId,
    at: event.occurredAt,
  });
  const identity = trafficEventColumns(event);
  const attribution = requestAttributionColumns(event);
  const tokens = tokenUsageColumns(event, costNanoUsd);
  // Every column named in one literal, never spread in: V8 turns an object that had more than a
  // dozen properties copied into it one by one into a slow dictionary object, and a batch builds
  // hundreds of these lines.
  const line: BillingLine = {
    event_id: identity.event_id,
    request_id: identity.request_id,
    occurred_at: identity.occurred_at,
    occurred_at_ms: identity.occurred_at_ms,
    day: identity.day,
    key_id: attribution.key_id,
    user_id: attribution.user_id,
    team_id: attribution.team_id,
    end_user_id: attribution.end_user_id,
    tags: attribution.tags,
    model: attribution.model,
    upstream_model: attribution.upstream_model,
    channel_id: attribution.channel_id,
    provider: attribution.provider,
    input_tokens: tokens.input_tokens,
    cached_input_tokens: tokens.cached_input_tokens,
    cache_write_tokens: tokens.cache_write_tokens,
    output_tokens: tokens.output_tokens,
    reasoning_tokens: tokens.reasoning_tokens,
    usage_source: tokens.usage_source,
    cost_usd: tokens.cost_usd,
    operation: event.operation,
    price_model: price?.model ?? '',
    price_channel: price?.channel ?? '',
    price_effective_from_ms: price ? Math.max(0, price.effectiveFrom) : 0,
    input_per_mtok: price ? new Decimal(price.inputNanoPerMTok) : ZERO,
    output_per_mtok: price ? new Decimal(price.outputNanoPerMTok) : ZERO,
    cache_read_per_mtok: price ? new Decimal(price.cacheReadNanoPerMTok) : ZERO,
    cache_write_per_mtok: price ? new Decimal(price.cacheWriteNanoPerMTok) : ZERO,
    cache_write_1h_per_mtok: price ? new Decimal(price.cacheWrite1hNanoPerMTok) : ZERO,
    cache_write_1h_tokens: Math.min(event.cacheWrite1hTokens, event.cacheWriteTokens),
    cache_savings_usd: price ? new Decimal(cacheSavingsNanoUsd(event, price)) : ZERO,
    priced: price ? 1 : 0,
  };
  return { line, costNanoUsd, warning };
}
