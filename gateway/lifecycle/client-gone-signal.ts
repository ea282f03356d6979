/**
 * The abort signal the request pipeline listens to: the client's departure, the node's drain
 * deadline, the wait between failovers. It lives with the node's lifecycle so that the exchange,
 * routing and the drain share it without importing each other.
 */

/**
 * What the exchange needs of a "client went away" signal: an AbortSignal
 * (https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal) fits, and so does the lighter
 * OnceSignal (once-signal.ts) the route handlers make per request. Listeners are called once,
 * when it aborts; adding one after it aborted does nothing.
 */
export interface ClientGoneSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
