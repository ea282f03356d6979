/**
 * The columns that the analytics rows of several consumers project the same way
 * (schemas/analytics/tables.ts): a traffic event's identity and time (consumption_log,
 * billing_lines, failovers), and who asked for a request, what served it, its tokens and cost
 * (consumption_log, billing_lines).
 */
import { Decimal } from '../schemas/analytics/analytics-store.ts';
import type { RequestAttributionColumns, TokenUsageColumns, TrafficEventColumns } from '../schemas/analytics/tables.ts';
import type { RequestCompleted, TokenCounts } from '../schemas/events/traffic-events.ts';

/**
 * The identity and time columns of the row of one traffic event: `occurredAt` (ms since epoch)
 * as whole seconds, as ms, and as its UTC day (`YYYY-MM-DD`). Never throws for a finite time.
 */
export function trafficEventColumns(event: {
  readonly eventId: string;
  readonly requestId: string;
  readonly occurredAt: number;
}): TrafficEventColumns {
  return {
    event_id: event.eventId,
    request_id: event.requestId,
    occurred_at: Math.floor(event.occurredAt / 1000),
    occurred_at_ms: event.occurredAt,
    day: new Date(event.occurredAt).toISOString().slice(0, 10),
  };
}

/**
 * Who asked for the request, who it was spent for (team, end user, tags) and what served it (a
 * RequestCompleted or a UsageRecorded): its ids and names, '' for those it names as null.
 */
export function requestAttributionColumns(
  event: Pick<
    RequestCompleted,
    'keyId' | 'userId' | 'teamId' | 'endUserId' | 'tags' | 'model' | 'upstreamModel' | 'channelId' | 'provider'
  >,
): RequestAttributionColumns {
  return {
    key_id: event.keyId,
    user_id: event.userId ?? '',
    team_id: event.teamId ?? '',
    end_user_id: event.endUserId ?? '',
    tags: event.tags,
    model: event.model,
    upstream_model: event.upstreamModel ?? '',
    channel_id: event.channelId ?? '',
    provider: event.provider ?? '',
  };
}

/** The token columns of `usage` (tokens, and where the counts came from) and its cost, nano-USD, as a Decimal of USD. */
export function tokenUsageColumns(
  usage: TokenCounts & { readonly usageSource: string },
  costNanoUsd: bigint,
): TokenUsageColumns {
  return {
    input_tokens: usage.inputTokens,
    cached_input_tokens: usage.cachedInputTokens,
    cache_write_tokens: usage.cacheWriteTokens,
    output_tokens: usage.outputTokens,
    reasoning_tokens: usage.reasoningTokens,
    usage_source: usage.usageSource,
    cost_usd: new Decimal(costNanoUsd),
  };
}
