/**
 * What every failover loop does between channel attempts, whatever the operation (generation,
 * embeddings): the FailoverRecord of a channel left for the next, the attempt's result told to the
 * health hook (ExchangeDeps.onAttempt: the local circuit breaker), and the step to the next
 * channel after a failed attempt (routing/failover-policy.ts: attempts bounded, a short upstream
 * Retry-After waited for).
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import type { Channel } from '../routing/channel.ts';
import { failoverWaitMs, retryBackoffMs, waitForFailover } from '../routing/failover-policy.ts';
import type { RoutingSettings } from '../config/routing-settings.ts';
import type { AdmittedChannel, ChannelAdmission } from './channel-admission.ts';
import type { ExchangeOutcome, FailoverRecord } from './exchange-outcome.ts';
import type { ExchangeDeps } from './exchange-types.ts';

/** The error recorded for a client that left before its request was sent upstream. */
export function clientLeftError(): GatewayError {
  return new GatewayError(
    'upstream-unavailable',
    'The client closed the connection before the request was sent upstream',
    { allowFailover: false, retryable: false },
  );
}

/** A failed attempt on `current`, as the step to the next channel reads it. */
export interface FailedAttempt {
  readonly requestId: string;
  readonly current: AdmittedChannel;
  readonly error: GatewayError;
  /** Attempts made so far, this one included. */
  readonly attempts: number;
  /** When this attempt started, ms since epoch. */
  readonly attemptStartedAt: number;
}

/** After a failed attempt: the next admitted channel, or why the request ends on this one (`no-next`: nothing left to try; `client-left`: the client went away while waiting). */
export type FailoverStep = { readonly next: AdmittedChannel } | { readonly end: 'no-next' | 'client-left' };

/**
 * Retry rounds of one model's failover loop (config `routing.retries`): the channels that failed
 * transiently (failover-worthy errors) are tried again, in the order they failed, after the other
 * candidates, at most `maxRetries` rounds, each after an exponential back-off with full jitter (or
 * the longest Retry-After of the round's channels when longer, all within `retryAfterCapMs`), never
 * past the request's deadline. A channel whose Retry-After exceeds the cap is not retried.
 */
export class RetryRounds {
  private round = 0;
  private failed: Array<{ channel: Channel; retryAfterMs: number }> = [];

  /** `deadlineAt`: the request's deadline, ms since epoch; `random` in [0, 1) for the jitter. */
  constructor(
    private readonly settings: RoutingSettings['retries'],
    private readonly deadlineAt: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Notes a failed attempt: a transient failure makes its channel a retry candidate (once). */
  noteFailure(channel: Channel, error: GatewayError): void {
    if (!error.allowFailover) return;
    const retryAfterMs = error.retryAfterMs ?? 0;
    if (retryAfterMs > this.settings.retryAfterCapMs) return;
    const known = this.failed.find((f) => f.channel.id === channel.id);
    if (known) known.retryAfterMs = retryAfterMs;
    else this.failed.push({ channel, retryAfterMs });
  }

  /**
   * The next round: the channels to append to the candidates and the wait before it (ms), or
   * undefined when no round is left, no channel qualifies, or the wait would pass the deadline.
   */
  nextRound(): { channels: Channel[]; waitMs: number } | undefined {
    if (this.round >= this.settings.maxRetries || this.failed.length === 0) return undefined;
    const backoff = retryBackoffMs(
      this.round + 1,
      this.settings.backoffBaseMs,
      this.settings.backoffMaxMs,
      this.random,
    );
    const waitMs = Math.max(backoff, ...this.failed.map((f) => f.retryAfterMs));
    if (Date.now() + waitMs >= this.deadlineAt) return undefined;
    this.round++;
    const channels = this.failed.map((f) => f.channel);
    this.failed = [];
    return { channels, waitMs };
  }
}

/** The bounds of one failover loop, as moveToNextChannel reads them. */
export interface FailoverLoop {
  readonly maxAttempts: number;
  readonly failovers: FailoverRecord[];
  readonly signal: ClientGoneSignal;
  /** Longest upstream Retry-After waited for before the next attempt, ms (default 1000). */
  readonly retryAfterCapMs?: number;
  /** Retry rounds over channels already tried (generation); none: each channel is tried once. */
  readonly retries?: RetryRounds;
}

/**
 * Moves a request on after `failed`: the next admitted candidate when the error allows failover
 * and fewer than `maxAttempts` were made — once the candidates are used up, a retry round
 * (RetryRounds) appends the transiently failed channels to `candidates`; the failover recorded in
 * `failovers` either way; a warning `failover` logged naming both channels and the reason; a short
 * upstream Retry-After (or the round's back-off) waited for (cut short when the client leaves,
 * which releases the next channel's admission).
 */
export async function moveToNextChannel(
  deps: Pick<ExchangeDeps, 'log'>,
  gates: ChannelAdmission,
  candidates: Channel[],
  failed: FailedAttempt,
  loop: FailoverLoop,
): Promise<FailoverStep> {
  const { current, error } = failed;
  const mayGoOn = error.allowFailover && failed.attempts < loop.maxAttempts;
  let next = mayGoOn ? (await gates.next(candidates, current.index + 1)).admitted : undefined;
  let waitMs = failoverWaitMs(error, loop.retryAfterCapMs);
  if (!next && mayGoOn) {
    const round = loop.retries?.nextRound();
    if (round) {
      const from = candidates.length;
      candidates.push(...round.channels);
      next = (await gates.next(candidates, from)).admitted;
      waitMs = round.waitMs;
    }
  }
  loop.failovers.push(failoverRecord(current.channel, error, failed.attemptStartedAt, next?.channel));
  if (!next) return { end: 'no-next' };
  deps.log.warn(
    {
      requestId: failed.requestId,
      channel: current.channel.id,
      next: next.channel.id,
      errorKind: error.kind,
      upstreamStatus: error.upstreamStatus,
      reason: error.message,
    },
    'failover',
  );
  await waitForFailover(waitMs, loop.signal);
  if (loop.signal.aborted) {
    gates.settle(next, undefined);
    return { end: 'client-left' };
  }
  return { next };
}

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

/** Hands `outcome` to the outcome sink and returns it; a sink that throws is logged, never the request's failure. */
export function deliverOutcome(
  deps: Pick<ExchangeDeps, 'onOutcome' | 'log'>,
  outcome: ExchangeOutcome,
): ExchangeOutcome {
  try {
    deps.onOutcome(outcome);
  } catch (error) {
    deps.log.error({ requestId: outcome.requestId, err: error }, 'outcome sink failed');
  }
  return outcome;
}
