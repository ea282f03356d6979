/**
 * The upstream adapter as a translated exchange uses it: every signature and redacted reasoning
 * block it decodes is stamped with the channel's provider (canonical/reasoning-provenance.ts), so
 * that a client replaying it later can only send it back to that provider. Pass-through answers
 * are relayed byte for byte and are not stamped.
 */
import { stampResponse, stampStreamEvent } from '../canonical/reasoning-provenance.ts';
import type { UpstreamAdapter, UpstreamStreamDecoder } from '../upstream/upstream-adapter.ts';

/** `adapter` with its decoded answers stamped with `provider` (a provider id such as `anthropic`). */
export function withReasoningStamps(adapter: UpstreamAdapter, provider: string): UpstreamAdapter {
  return {
    ...adapter,
    decodeResponse: (body, context) => stampResponse(adapter.decodeResponse(body, context), provider),
    createStreamDecoder: (context): UpstreamStreamDecoder => {
      const decoder = adapter.createStreamDecoder(context);
      return {
        push: (sse) => decoder.push(sse).map((event) => stampStreamEvent(event, provider)),
        end: () => decoder.end().map((event) => stampStreamEvent(event, provider)),
      };
    },
  };
}
