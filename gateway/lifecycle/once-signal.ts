/**
 * A one-shot abort signal with its listeners in a plain Set: it fits ClientGoneSignal
 * (client-gone-signal.ts) and an upstream call's signal (undici reads `aborted`, `reason` and
 * `addEventListener`), and costs several times less to create and to listen to than an
 * AbortController (an EventTarget), which matters for the one made per request, the one made per
 * upstream attempt and the node-wide drain deadline every attempt listens to.
 */
import type { ClientGoneSignal } from './client-gone-signal.ts';

/** A ClientGoneSignal that aborts once, when `abort()` is called. */
export class OnceSignal implements ClientGoneSignal {
  aborted = false;
  /** What `abort(reason)` was given; undefined before, or when it was given none. */
  reason: unknown = undefined;
  private listeners: Set<() => void> | undefined;

  /** Adds `listener` (called once, on abort); does nothing after the signal aborted. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= new Set()).add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners?.delete(listener);
  }

  /** Marks the signal aborted (with `reason`, when given) and calls each listener once; later calls do nothing. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }
}
