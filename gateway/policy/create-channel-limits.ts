/**
 * Builds the exchange's ChannelLimits (gateway/routing/channel-limits.ts) from a lookup of each
 * channel's limits (the control-plane projection's ChannelRecord.rpm/tpm) and a limiter.
 */
import type { RateLimiter } from '../../schemas/state-store/rate-limiter.ts';
import { channelLimitScope, type ChannelLimits } from '../routing/channel-limits.ts';
import { DEFAULT_MAX_OUTPUT_TOKENS, estimateAdmissionTokens } from './estimate-admission-tokens.ts';

/** Inputs of createChannelLimits. */
export interface ChannelLimitsOptions {
  readonly limiter: RateLimiter;
  /** The channel's current limits (null = unlimited), or undefined for an unknown channel (unlimited). Read on every request. */
  limitsOf(channelId: string): { readonly rpm: number | null; readonly tpm: number | null } | undefined;
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
