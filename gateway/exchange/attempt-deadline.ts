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
import { OnceSignal } from '../lifecycle/once-signal.ts';
import type { UpstreamCallSignal } from '../upstream/upstream-adapter.ts';

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

/**
 * Timers of one attempt; `dispose()` when the attempt is over. One timer at a time serves both
 * limits: it is set for whichever comes first, the total deadline or the end of the current
 * minimum-rate window, and set again for the next one when it fires. Messages are built only
 * when a limit is missed: a live stream holds one timer and no text.
 */
export class AttemptDeadline {
  /**
   * Aborted when the client leaves or a limit is missed (its `reason` then the GatewayError of
   * the limit); give it to the upstream call. A OnceSignal: an AbortController per attempt cost
   * an EventTarget and its listener map.
   */
  readonly signal: UpstreamCallSignal;
  private readonly controller = new OnceSignal();
  /** When the total deadline falls, ms since epoch. */
  private readonly totalDueAt: number;
  /** When the current minimum-rate window ends, ms since epoch; Infinity until the first body byte. */
  private windowEndsAt = Infinity;
  private timer: NodeJS.Timeout | undefined;
  /** Which limit `timer` was set for. */
  private timerFor: 'total' | 'window' = 'total';
  private bytesInWindow = 0;
  private failure: GatewayError | undefined;
  private readonly onClientAbort = (): void => this.controller.abort();
  private readonly onDrainDeadline = (): void => this.expire(drainDeadlineError());
  private readonly onTimer = (): void => this.timerFired();

  /**
   * Starts the total deadline now. `clientSignal` is the client's own disconnect; `drainDeadline`
   * the node's drain deadline (none: the attempt is never cut by a drain).
   */
  constructor(
    private readonly clientSignal: ClientGoneSignal,
    private readonly limits: AttemptLimits,
    private readonly drainDeadline?: ClientGoneSignal,
  ) {
    this.signal = this.controller;
    if (clientSignal.aborted) this.controller.abort();
    else clientSignal.addEventListener('abort', this.onClientAbort, { once: true });
    const totalMs = Math.max(0, limits.totalMs);
    this.totalDueAt = Date.now() + totalMs;
    this.timer = setTimeout(this.onTimer, totalMs);
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
    if (this.windowEndsAt === Infinity && this.limits.minStreamRate.bytes > 0 && !this.signal.aborted) {
      // The first window counts the byte that started it.
      this.windowEndsAt = Date.now() + this.limits.minStreamRate.windowMs;
      if (this.windowEndsAt < this.totalDueAt) this.arm('window', this.limits.minStreamRate.windowMs);
    }
  }

  /** Stops the timer and the listeners; the signal keeps its state. */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.clientSignal.removeEventListener('abort', this.onClientAbort);
    this.drainDeadline?.removeEventListener('abort', this.onDrainDeadline);
  }

  /** Replaces the pending timer by one for `limit`, `delayMs` from now. */
  private arm(limit: 'total' | 'window', delayMs: number): void {
    clearTimeout(this.timer);
    this.timerFor = limit;
    this.timer = setTimeout(this.onTimer, Math.max(0, delayMs));
  }

  private timerFired(): void {
    this.timer = undefined;
    if (this.signal.aborted) return;
    if (this.timerFor === 'total') {
      const { totalMs, requestDeadline } = this.limits;
      const message = requestDeadline
        ? `Request deadline of the gateway reached after ${totalMs} ms of this attempt`
        : `Upstream did not finish its answer within the channel's deadline of ${totalMs} ms`;
      return this.expire(new GatewayError('upstream-timeout', message, { allowFailover: !requestDeadline }));
    }
    const { bytes: minimum, windowMs } = this.limits.minStreamRate;
    const seen = this.bytesInWindow;
    this.bytesInWindow = 0;
    if (seen < minimum)
      return this.expire(
        new GatewayError(
          'upstream-timeout',
          `Upstream stream slower than ${minimum} bytes per ${windowMs} ms (${seen} bytes in the last window)`,
          { allowFailover: !this.limits.requestDeadline },
        ),
      );
    // The next window starts now, as an interval's next run would after a late one.
    const now = Date.now();
    this.windowEndsAt = now + windowMs;
    if (this.windowEndsAt < this.totalDueAt) this.arm('window', this.windowEndsAt - now);
    else this.arm('total', this.totalDueAt - now);
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
