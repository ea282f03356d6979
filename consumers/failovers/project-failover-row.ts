/**
 * The failovers' pure projection: one FailoverOccurred → one `failovers` row
 * (schemas/analytics/migrations/009-failovers.sql). The table is a ReplacingMergeTree ordered by
 * (day, channel_id, event_id), all fields of the event, so a redelivered event projects to the
 * same sorting key and replaces its own row.
 */
import type { FailoverRow } from '../../schemas/analytics/tables.ts';
import type { FailoverOccurred } from '../../schemas/events/traffic-events.ts';
import { trafficEventColumns } from '../traffic-row-columns.ts';

/**
 * Projects one failover. Durations are whole non-negative ms (the columns are UInt64; the event
 * already carries whole ms, this only guards the column type); a missing next channel stays null.
 * Never throws.
 */
export function projectFailoverRow(event: FailoverOccurred): FailoverRow {
  return {
    ...trafficEventColumns(event),
    key_id: event.keyId,
    model: event.model,
    channel_id: event.channelId,
    error_kind: event.errorKind,
    upstream_status: event.upstreamStatus,
    latency_ms: wholeMs(event.latencyMs),
    retry_after_ms: event.retryAfterMs === null ? null : wholeMs(event.retryAfterMs),
    next_channel_id: event.nextChannelId,
  };
}

/** A duration as whole non-negative ms. */
function wholeMs(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}
