/**
 * Builds the exchange's routing collaborators (ExchangeDeps.routing) from the config's `routing`
 * section and the node's shared signals: prompt-cache affinity over the affinity store, latency
 * from the shared channel health, in-flight counts from the in-flight board, and expected costs
 * from the price book. README "Routing".
 */
import type { AffinityStore } from '../../schemas/state-store/affinity-store.ts';
import type { RoutingSettings } from '../config/routing-settings.ts';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../policy/estimate-admission-tokens.ts';
import type { RequestPricer } from '../policy/request-pricer.ts';
import type { RoutingSignals } from '../routing/channel-router.ts';
import { PromptCacheAffinity, type AffinityLog } from '../routing/prompt-cache-affinity.ts';
import type { ExchangeInput, ExchangeRouting } from './exchange-types.ts';

/** Output tokens the `cost` strategy expects at most: a typical answer, so a large `max_tokens` does not outweigh the input. */
export const EXPECTED_OUTPUT_TOKENS_CAP = 1024;

/** Latency per channel as the shared health knows it (ChannelHealthView). */
export interface ChannelLatencySource {
  /** The last shared health of a channel: EWMA of time to first byte and of total time, ms (0: unmeasured). */
  sharedHealth(channelId: string): { readonly latencyEwmaMs: number; readonly totalLatencyEwmaMs?: number } | undefined;
}

/** Requests in flight per channel across nodes (routing/in-flight-board.ts). */
export interface InFlightCounter {
  /** Counts one attempt in flight on `channelId`; the returned function ends it (idempotent). */
  begin(channelId: string): () => void;
  /** Attempts in flight on `channelId`, this node's and the other nodes' last known. */
  inFlight(channelId: string): number;
}

/** Inputs of createExchangeRouting. */
export interface ExchangeRoutingOptions {
  readonly settings: RoutingSettings;
  /** Conversation pins (shared across nodes with Redis); none: no affinity. */
  readonly affinityStore?: AffinityStore;
  readonly health?: ChannelLatencySource;
  readonly inFlight?: InFlightCounter;
  readonly pricer?: RequestPricer;
  readonly log?: AffinityLog;
}

/** The exchange's routing collaborators for `options` (affinity only when enabled and a store is given). */
export function createExchangeRouting(options: ExchangeRoutingOptions): ExchangeRouting {
  const { settings, health, inFlight, pricer } = options;
  const affinity =
    settings.affinity.enabled && options.affinityStore
      ? new PromptCacheAffinity({
          store: options.affinityStore,
          ...(settings.affinity.ttlMs === undefined ? {} : { ttlMs: settings.affinity.ttlMs }),
          ...(options.log ? { log: options.log } : {}),
        })
      : undefined;
  const signals: RoutingSignals = {
    latencyMs(channelId, phase) {
      const shared = health?.sharedHealth(channelId);
      if (!shared) return 0;
      return phase === 'first-token' ? shared.latencyEwmaMs : (shared.totalLatencyEwmaMs ?? shared.latencyEwmaMs);
    },
    inFlight: (channelId) => inFlight?.inFlight(channelId) ?? 0,
  };
  return {
    settings,
    ...(affinity ? { affinity } : {}),
    signals,
    ...(inFlight ? { beginAttempt: (channelId: string) => inFlight.begin(channelId) } : {}),
    ...(pricer
      ? {
          costOf: (channel, input: ExchangeInput) =>
            pricer.expectedCostUsd(
              channel,
              input.request.model,
              input.inputTokens?.() ?? 0,
              Math.min(input.request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, EXPECTED_OUTPUT_TOKENS_CAP),
              Date.now(),
            ),
        }
      : {}),
  };
}
