/**
 * A one-shot abort signal with its listeners in a field and, past the first, a plain Set: it fits ClientGoneSignal
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
  /** The first listener: most signals have one, and a Set would cost about 150 bytes for it. */
  private first: (() => void) | undefined;
  /** Listeners added while `first` or an earlier one was held, in order. */
  private more: Set<() => void> | undefined;

  /** Adds `listener` (called once, on abort; a listener already added is not added again); does nothing after the signal aborted. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted || listener === this.first) return;
    if (this.first === undefined && this.more === undefined) this.first = listener;
    else (this.more ??= new Set()).add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (listener === this.first) this.first = undefined;
    else this.more?.delete(listener);
  }

  /** Marks the signal aborted (with `reason`, when given) and calls each listener once, in the order added; later calls do nothing. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const first = this.first;
    const more = this.more;
    this.first = undefined;
    this.more = undefined;
    if (first) first();
    if (more) for (const listener of more) listener();
  }
}
