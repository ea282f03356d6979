/**
 * A one-shot abort signal with its listeners in a plain Set: it fits ClientGoneSignal
 * (client-gone-signal.ts) and costs several times less to create and to listen to than an
 * AbortController (an EventTarget), which matters for the one made per request and for the
 * node-wide drain deadline every upstream attempt listens to.
 */
import type { ClientGoneSignal } from './client-gone-signal.ts';

/** A ClientGoneSignal that aborts once, when `abort()` is called. */
export class OnceSignal implements ClientGoneSignal {
  aborted = false;
  private listeners: Set<() => void> | undefined;

  /** Adds `listener` (called once, on abort); does nothing after the signal aborted. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= new Set()).add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners?.delete(listener);
  }

  /** Marks the signal aborted and calls each listener once; later calls do nothing. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }
}
