/**
 * The time limits of one upstream attempt beyond undici's per-gap timeouts: a total deadline (from
 * sending the request to the last byte of the answer), a minimum rate for streamed bodies and the
 * node's drain deadline (lifecycle/node-drain.ts). When one is missed, or the client goes away,
 * `signal` aborts the upstream call (undici closes the connection) and `expired` says which limit
 * it was, as the GatewayError the client gets.
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import { drainDeadlineError } from '../lifecycle/node-drain.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';

/** At least `bytes` in every `windowMs` after the first body byte; `bytes: 0` disables the check. */
export interface MinStreamRate {
  /** bytes */
  readonly bytes: number;
  /** ms */
  readonly windowMs: number;
}

/** What one attempt is allowed. */
export interface AttemptLimits {
  /** Total time for the attempt, ms (the channel's deadline, or less when the request's own deadline is nearer). */
  readonly totalMs: number;
  /** True when `totalMs` is what is left of the request's deadline: no time remains for failover. */
  readonly requestDeadline: boolean;
  readonly minStreamRate: MinStreamRate;
}

/** Timers of one attempt; `dispose()` when the attempt is over. */
export class AttemptDeadline {
  /** Aborted when the client leaves or a limit is missed; give it to the upstream call. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly totalTimer: NodeJS.Timeout;
  private rateTimer: NodeJS.Timeout | undefined;
  private bytesInWindow = 0;
  private failure: GatewayError | undefined;
  private readonly onClientAbort = (): void => this.controller.abort();
  private readonly onDrainDeadline = (): void => this.expire(drainDeadlineError());
  /** The total deadline passed: its error is built only then. */
  private readonly onTotalDeadline = (): void => {
    const { requestDeadline, totalMs } = this.limits;
    const message = requestDeadline
      ? `Request deadline of the gateway reached after ${totalMs} ms of this attempt`
      : `Upstream did not finish its answer within the channel's deadline of ${totalMs} ms`;
    this.expire(new GatewayError('upstream-timeout', message, { allowFailover: !requestDeadline }));
  };

  /**
   * Starts the total deadline now. `clientSignal` is the client's own disconnect; `drainDeadline`
   * the node's drain deadline (none: the attempt is never cut by a drain).
   */
  constructor(
    private readonly clientSignal: ClientGoneSignal,
    private readonly limits: AttemptLimits,
    private readonly drainDeadline?: ClientGoneSignal,
  ) {
    this.signal = this.controller.signal;
    if (clientSignal.aborted) this.controller.abort();
    else clientSignal.addEventListener('abort', this.onClientAbort, { once: true });
    this.totalTimer = setTimeout(this.onTotalDeadline, Math.max(0, limits.totalMs));
    if (drainDeadline?.aborted) this.expire(drainDeadlineError());
    else drainDeadline?.addEventListener('abort', this.onDrainDeadline);
  }

  /** The limit that ended the attempt; undefined while none did (or when the client left first). */
  get expired(): GatewayError | undefined {
    return this.failure;
  }

  /** Counts streamed body bytes; the first call starts the minimum-rate windows. */
  countBytes(bytes: number): void {
    this.bytesInWindow += bytes;
    if (this.rateTimer === undefined && this.limits.minStreamRate.bytes > 0 && !this.signal.aborted) {
      const { bytes: minimum, windowMs } = this.limits.minStreamRate;
      // The first window counts the byte that started it.
      this.rateTimer = setInterval(() => {
        const seen = this.bytesInWindow;
        this.bytesInWindow = 0;
        if (seen < minimum)
          this.expire(
            new GatewayError(
              'upstream-timeout',
              `Upstream stream slower than ${minimum} bytes per ${windowMs} ms (${seen} bytes in the last window)`,
              { allowFailover: !this.limits.requestDeadline },
            ),
          );
      }, windowMs);
    }
  }

  /** Stops the timers and the client listener; the signal keeps its state. */
  dispose(): void {
    clearTimeout(this.totalTimer);
    if (this.rateTimer !== undefined) clearInterval(this.rateTimer);
    this.clientSignal.removeEventListener('abort', this.onClientAbort);
    this.drainDeadline?.removeEventListener('abort', this.onDrainDeadline);
  }

  private expire(error: GatewayError): void {
    if (this.signal.aborted) return;
    this.failure = error;
    this.dispose();
    this.controller.abort(error);
  }
}

/**
 * The limits of an attempt on a channel starting now: the channel's deadline, cut to what is left
 * of the request's (`requestDeadlineAt`, ms since epoch; `totalMs` ≤ 0 when none is left).
 */
export function attemptLimitsFor(
  channel: { readonly deadlineMs: number; readonly minStreamRate: MinStreamRate },
  requestDeadlineAt: number,
  now: number = Date.now(),
): AttemptLimits {
  const left = requestDeadlineAt - now;
  const requestDeadline = left <= channel.deadlineMs;
  return {
    totalMs: requestDeadline ? left : channel.deadlineMs,
    requestDeadline,
    minStreamRate: channel.minStreamRate,
  };
}
