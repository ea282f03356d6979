/**
 * Channel limits: RPM/TPM per channel, modelled on the upstream account's quota. Before
 * calling a channel the exchange admits the request against the channel's scope
 * (`channel:<id>`); a channel at its limit is SKIPPED — not a failure, nothing is recorded against
 * its health — and the token reservation is settled with the attempt's actual usage afterwards.
 */
import type { LimitScope, RateLimiter } from '../../schemas/state-store/rate-limiter.ts';
import type { CanonicalRequest } from '../canonical/request.ts';

/** What the exchange needs to apply channel limits (ExchangeDeps.channelLimits). */
export interface ChannelLimits {
  /** The shared limiter (Redis across nodes, or memory). */
  readonly limiter: RateLimiter;
  /** The channel's scope (`channel:<id>` with its rpm/tpm), or undefined when the channel has no limits. */
  scopeFor(channelId: string): LimitScope | undefined;
  /** Tokens to reserve for `request` on a channel (called at most once per request), e.g. estimateAdmissionTokens. */
  estimatedTokens(request: CanonicalRequest): number;
}

/** The scope of a channel with these limits (null = unlimited); undefined when both are null. */
export function channelLimitScope(channelId: string, rpm: number | null, tpm: number | null): LimitScope | undefined {
  return rpm === null && tpm === null ? undefined : { scope: `channel:${channelId}`, rpm, tpm };
}
