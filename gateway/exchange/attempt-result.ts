/**
 * The result of trying one channel: either the client got an answer (`served`), or nothing was
 * sent yet and the router may move on (`failed`), or the channel's protocol cannot carry the
 * request and nothing was sent upstream (`refused`: not the channel's fault, not a failover).
 */
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { Usage } from '../canonical/usage.ts';

export type AttemptResult =
  | {
      readonly kind: 'served';
      readonly status: 'completed' | 'failed' | 'cancelled';
      readonly httpStatus: number;
      readonly usage: Usage;
      /** ms from request arrival to the first byte sent. */
      readonly ttfbMs: number;
      readonly error?: GatewayError;
      /** The upstream's own id of the call (its `x-request-id` / `request-id` header), when it sent one. */
      readonly upstreamRequestId?: string;
    }
  | { readonly kind: 'failed'; readonly error: GatewayError; readonly upstreamRequestId?: string }
  | { readonly kind: 'refused'; readonly error: GatewayError };
