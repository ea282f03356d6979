/**
 * What every failover loop records of one channel attempt, whatever the operation (generation,
 * embeddings): the FailoverRecord of a channel left for the next, and the attempt's result told
 * to the health hook (ExchangeDeps.onAttempt: the local circuit breaker).
 */
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { Channel } from '../routing/channel.ts';
import type { FailoverRecord } from './exchange-outcome.ts';
import type { ExchangeDeps } from './exchange-types.ts';

/**
 * The record of leaving `channel` after `error`: its latency from `attemptStartedAt` (ms since
 * epoch) to now, the upstream status and Retry-After (ms) when known, and the next channel when one follows.
 */
export function failoverRecord(
  channel: Channel,
  error: GatewayError,
  attemptStartedAt: number,
  next: Channel | undefined,
): FailoverRecord {
  return {
    channelId: channel.id,
    errorKind: error.kind,
    latencyMs: Date.now() - attemptStartedAt,
    ...(error.upstreamStatus === undefined ? {} : { upstreamStatus: error.upstreamStatus }),
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    ...(next ? { nextChannelId: next.id } : {}),
  };
}

/**
 * Tells the attempt hook whether the channel itself failed: `error` given and failover-worthy
 * (client-side and request faults do not count); a served attempt is ok.
 */
export function reportChannelAttempt(
  deps: Pick<ExchangeDeps, 'onAttempt'>,
  channel: Channel,
  error: GatewayError | undefined,
): void {
  if (!deps.onAttempt) return;
  const channelFault = error !== undefined && error.allowFailover;
  deps.onAttempt(
    channel.id,
    channelFault
      ? { ok: false, ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }) }
      : { ok: true },
  );
}
