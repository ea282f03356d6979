/**
 * Channel limits, in one place: RPM/TPM per channel, modelled on the upstream account's quota.
 * The limits themselves are set with the channel (admin API `rpm`/`tpm`, null = unlimited) and
 * kept on the control plane's ChannelRecord; this module turns them into the exchange's
 * ChannelLimits. Before calling a channel the exchange admits the request against the channel's
 * scope (`channel:<id>`, gateway/exchange/channel-admission.ts); a channel at its limit is
 * SKIPPED — not a failure, nothing is recorded against its health — and the token reservation is
 * settled with the attempt's actual usage afterwards.
 */
import type { RateLimits } from '../../schemas/control-plane/control-plane-events.ts';
import type { LimitScope, RateLimiter } from '../../schemas/state-store/rate-limiter.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { DEFAULT_MAX_OUTPUT_TOKENS, estimateAdmissionTokens } from './estimate-admission-tokens.ts';

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

/**
 * The scope of one pooled credential of a channel (`channel:<id>/credential:<credentialId>`, README
 * "Key pools") with its own limits (null = unlimited); undefined when both are null.
 */
export function credentialLimitScope(
  channelId: string,
  credentialId: string,
  rpm: number | null,
  tpm: number | null,
): LimitScope | undefined {
  return rpm === null && tpm === null
    ? undefined
    : { scope: `channel:${channelId}/credential:${credentialId}`, rpm, tpm };
}

/** Inputs of createChannelLimits. */
export interface ChannelLimitsOptions {
  readonly limiter: RateLimiter;
  /** The channel's current limits (null = unlimited), or undefined for an unknown channel (unlimited). Read on every request. */
  limitsOf(channelId: string): RateLimits | undefined;
  /** Output tokens reserved when a request sets no max (default 4096). */
  readonly defaultMaxOutput?: number;
}

/**
 * ChannelLimits over `limitsOf`: scope `channel:<id>` with the channel's rpm/tpm (none when both
 * are null), reservations by estimateAdmissionTokens. Never throws.
 */
export function createChannelLimits(options: ChannelLimitsOptions): ChannelLimits {
  const defaultMaxOutput = options.defaultMaxOutput ?? DEFAULT_MAX_OUTPUT_TOKENS;
  return {
    limiter: options.limiter,
    scopeFor(channelId) {
      const limits = options.limitsOf(channelId);
      return limits ? channelLimitScope(channelId, limits.rpm, limits.tpm) : undefined;
    },
    estimatedTokens: (request) => estimateAdmissionTokens(request, defaultMaxOutput),
  };
}
