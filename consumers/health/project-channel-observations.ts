/**
 * The health projection (pure): which traffic events say something about a channel, and what.
 *
 * Whose fault (the same split the gateway uses for failover, gateway/canonical/gateway-error.ts):
 * - channel faults → a failed observation: upstream-unavailable, upstream-timeout,
 *   upstream-malformed, upstream-rate-limited (connection errors, 5xx/529, timeouts/408/504,
 *   undecodable 2xx, 429).
 * - request faults → an ok observation carrying the errorKind (the channel answered properly; it
 *   resets consecutive failures but is no latency sample): invalid-request, upstream-rejected (an
 *   upstream 4xx other than 408/429, including 401/403 — the gateway does not fail over on those
 *   either), request-too-large, unsupported-media-type.
 * - anything else (internal, cancelled, gateway policy kinds) → no observation.
 *
 * Events:
 * - FailoverOccurred (one per failed attempt, also the last one when the router gave up) → an
 *   observation of `channelId` by the rules above, with its latencyMs and retryAfterMs.
 * - RequestCompleted with a channelId:
 *   - completed → ok; latency sample = ttfbMs (time to first byte; for a stream the total time
 *     depends on output length), or latencyMs when ttfbMs is null; total-time sample (`totalMs`)
 *     = latencyMs. Both count from request arrival, so earlier failed attempts of the same
 *     request are included.
 *   - only a completed request has a total-time sample: the others ended early (a failure, a
 *     client that left), so their total time says nothing of how long the channel takes.
 *   - failed or cancelled with ttfbMs null (nothing reached the client) → no observation: that
 *     attempt already has its FailoverOccurred; counting it again would double it.
 *   - cancelled after the first byte → ok with the ttfbMs sample (the client left, not the channel).
 *   - failed after the first byte (mid-stream) → by the fault rules, latency = latencyMs.
 * The observation's eventId is the event's eventId, `position` its record's log position (the
 * store applies each position once), `at` its occurredAt; a negative latency (a
 * wall-clock step) is recorded as 0.
 */
import type { FailoverOccurred, RequestCompleted, TrafficEvent } from '../../schemas/events/traffic-events.ts';
import type { ChannelObservation, LogPosition } from '../../schemas/state-store/state-store.ts';

/** Error kinds that are the channel's fault (the gateway's failover kinds). */
export const CHANNEL_FAULT_KINDS: ReadonlySet<string> = new Set([
  'upstream-unavailable',
  'upstream-timeout',
  'upstream-malformed',
  'upstream-rate-limited',
]);

/** Error kinds that are the request's fault: the channel answered as it should. */
export const REQUEST_FAULT_KINDS: ReadonlySet<string> = new Set([
  'invalid-request',
  'upstream-rejected',
  'request-too-large',
  'unsupported-media-type',
]);

/** The health observations one traffic event yields (0 or 1). */
export function projectChannelObservations(
  event: TrafficEvent & { readonly position: LogPosition },
): ChannelObservation[] {
  if (event.type === 'FailoverOccurred') return fromFailover(event.event, event.position);
  if (event.type === 'RequestCompleted') return fromRequest(event.event, event.position);
  return [];
}

function fromFailover(event: FailoverOccurred, position: LogPosition): ChannelObservation[] {
  return byFault(event.errorKind, {
    eventId: event.eventId,
    position,
    channelId: event.channelId,
    at: event.occurredAt,
    latencyMs: Math.max(0, event.latencyMs),
    ...(event.retryAfterMs === null ? {} : { retryAfterMs: event.retryAfterMs }),
  });
}

function fromRequest(event: RequestCompleted, position: LogPosition): ChannelObservation[] {
  if (event.channelId === null) return [];
  const base = { eventId: event.eventId, position, channelId: event.channelId, at: event.occurredAt };
  if (event.status === 'completed')
    return [
      {
        ...base,
        ok: true,
        latencyMs: Math.max(0, event.ttfbMs ?? event.latencyMs),
        totalMs: Math.max(0, event.latencyMs),
      },
    ];
  if (event.ttfbMs === null) return [];
  if (event.status === 'cancelled') return [{ ...base, ok: true, latencyMs: Math.max(0, event.ttfbMs) }];
  return byFault(event.errorKind ?? '', { ...base, latencyMs: Math.max(0, event.latencyMs) });
}

/** Classifies an error kind into a failed, an ok (request fault) or no observation. */
function byFault(errorKind: string, partial: Omit<ChannelObservation, 'ok' | 'errorKind'>): ChannelObservation[] {
  if (CHANNEL_FAULT_KINDS.has(errorKind)) return [{ ...partial, ok: false, errorKind }];
  if (REQUEST_FAULT_KINDS.has(errorKind)) {
    const { retryAfterMs: _ignored, ...rest } = partial;
    return [{ ...rest, ok: true, errorKind }];
  }
  return [];
}
