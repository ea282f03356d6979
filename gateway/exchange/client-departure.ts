/**
 * Notices a client that leaves before its answer ended, from the first line of a route handler:
 * the response's `close` event fires when the underlying connection is closed, and a response
 * that closes before `end()` was called means the client went away
 * (https://nodejs.org/api/http.html#event-close_1, "Event: 'close'" of http.ServerResponse).
 * A connection already closed when the handler starts (the client left while its body was being
 * read) counts as gone at once.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import { OnceSignal } from '../lifecycle/once-signal.ts';

/** The watch over one request: `signal` aborts when the client leaves; `stop` removes the listener. */
export interface ClientDeparture {
  readonly signal: ClientGoneSignal;
  /** Stops watching (call when the handler is done; idempotent). */
  stop(): void;
}

/**
 * Starts watching `reply`'s connection. The signal aborts when the connection closes before the
 * answer was ended. Never throws.
 */
export function watchClientDeparture(request: FastifyRequest, reply: FastifyReply): ClientDeparture {
  const signal = new OnceSignal();
  const raw = reply.raw;
  const onClose = (): void => {
    if (!raw.writableEnded) signal.abort();
  };
  if (request.raw.socket?.destroyed === true || raw.destroyed) onClose();
  else raw.on('close', onClose);
  return {
    signal,
    stop: () => void raw.off('close', onClose),
  };
}
