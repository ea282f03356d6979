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
  const line: BillingLine = {
    ...trafficEventColumns(event),
    ...requestAttributionColumns(event),
    ...tokenUsageColumns(event, costNanoUsd),
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
