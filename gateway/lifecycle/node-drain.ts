/**
 * The drain of a stopping gateway node (SIGTERM/SIGINT, README "Readiness and drain"): once it
 * begins, /readyz answers 503 and new client requests are refused with 503 `shutting-down` in
 * their own format (not recorded: they reach no channel); the requests in flight get until the
 * drain deadline to finish. At the deadline `deadlinePassed` aborts, every upstream attempt still
 * running ends with a `shutting-down` error (attempt-deadline.ts): a stream that has started
 * ends with its format's error event and is recorded `failed` with usage `partial` (what was
 * delivered), an answer not yet started gets the 503 error answer. The caller then closes the
 * connections left, e.g. a client that stopped reading.
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import { OnceSignal } from './once-signal.ts';

/** How long a refused client is asked to wait before retrying (Retry-After), ms. */
export const SHUTDOWN_RETRY_AFTER_MS = 1000;

/** Time given to the requests cut at the deadline to write their last frame and be recorded, ms. */
const SETTLE_AFTER_DEADLINE_MS = 2000;

/** What a drain did. */
export interface DrainResult {
  /** Requests in flight when the drain began. */
  readonly inFlightAtStart: number;
  /** Requests still in flight at the deadline, whose upstream attempts were cut. */
  readonly cutAtDeadline: number;
  /** Requests still in flight once the settle time after the deadline passed too (their connections must be closed). */
  readonly leftOver: number;
  /** How long the drain took, ms. */
  readonly elapsedMs: number;
}

/** The refusal a draining node answers new requests with: 503, `Retry-After: 1`. */
export function shuttingDownRefusal(): GatewayError {
  return new GatewayError(
    'shutting-down',
    'This gateway node is shutting down; retry the request and another node will serve it',
    { retryAfterMs: SHUTDOWN_RETRY_AFTER_MS, allowFailover: false, retryable: true },
  );
}

/** The error that ends an attempt still running at the drain deadline (503 before the answer started, the stream's error event after). */
export function drainDeadlineError(): GatewayError {
  return new GatewayError(
    'shutting-down',
    'This gateway node is shutting down and its drain deadline passed before the answer ended',
    { allowFailover: false, retryable: true },
  );
}

/**
 * Counts the client requests in flight on one node and runs its drain. One per node; the route
 * handlers call `enter()`/`leave()` around each generation request and check `draining` first.
 */
export class NodeDrain {
  /** Aborts at the drain deadline; every upstream attempt listens to it (attempt-deadline.ts). */
  readonly deadlinePassed = new OnceSignal();
  private isDraining = false;
  private inFlight = 0;
  private onIdle: (() => void) | undefined;

  /** True once the drain began: refuse new requests, report not ready. */
  get draining(): boolean {
    return this.isDraining;
  }

  /** Generation requests being served now. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** A request was accepted for serving; pair with `leave()`. */
  enter(): void {
    this.inFlight += 1;
  }

  /** A request entered with `enter()` is done (answered and recorded). */
  leave(): void {
    this.inFlight -= 1;
    if (this.inFlight === 0) this.onIdle?.();
  }

  /**
   * Begins the drain and resolves once no request is in flight, or `deadlineMs` (ms, ≥ 0)
   * passed: then calls `onDeadline` with the number still in flight, aborts `deadlinePassed` and
   * waits up to 2 s more for the cut requests to finish. Call once. Never rejects.
   */
  async drain(deadlineMs: number, onDeadline?: (inFlight: number) => void): Promise<DrainResult> {
    const startedAt = Date.now();
    this.isDraining = true;
    const inFlightAtStart = this.inFlight;
    let cutAtDeadline = 0;
    if (!(await this.idleWithin(deadlineMs))) {
      cutAtDeadline = this.inFlight;
      onDeadline?.(cutAtDeadline);
      this.deadlinePassed.abort();
      await this.idleWithin(SETTLE_AFTER_DEADLINE_MS);
    }
    return { inFlightAtStart, cutAtDeadline, leftOver: this.inFlight, elapsedMs: Date.now() - startedAt };
  }

  /** Resolves true once nothing is in flight, false after `ms`. */
  private idleWithin(ms: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.onIdle = undefined;
        resolve(false);
      }, ms);
      this.onIdle = () => {
        clearTimeout(timer);
        this.onIdle = undefined;
        resolve(true);
      };
    });
  }
}
