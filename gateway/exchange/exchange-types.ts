/**
 * What the exchange needs: its dependencies (made by the app, injected) and one client request.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Dispatcher } from 'undici';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { UncarriedPart } from '../canonical/translation-notes.ts';
import type { InboundCodec } from '../inbound/inbound-codec.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import type { ChannelLimits } from '../policy/channel-limits.ts';
import type { RequestAttribution } from '../policy/request-attribution.ts';
import type { ChannelRouter, RoutingSignals } from '../routing/channel-router.ts';
import type { Channel } from '../routing/channel.ts';
import type { AffinityKey, PromptCacheAffinity } from '../routing/prompt-cache-affinity.ts';
import type { RoutingSettings } from '../config/routing-settings.ts';
import type { CredentialPool } from '../routing/credential-pool.ts';
import type { UpstreamAdapters, UpstreamAuthorizer } from '../upstream/upstream-adapter.ts';
import type { ClientAnswerHook } from './client-answer-hook.ts';
import type { OutcomeSink } from './exchange-outcome.ts';
import type { BudgetCounter } from '../../schemas/state-store/budget-ledger.ts';

/** Long-lived collaborators of every exchange. */
export interface ExchangeDeps {
  readonly dispatcher: Dispatcher;
  readonly router: ChannelRouter;
  /** The upstream adapters by adapter key (Channel.adapterKey). */
  readonly adapters: UpstreamAdapters;
  /** Adds cloud channels' credentials (endpoints with auth `cloud-credentials`) to built upstream calls. */
  readonly upstreamAuth?: UpstreamAuthorizer;
  readonly log: FastifyBaseLogger;
  /** Idle time after which a keep-alive frame is written to a client stream, ms. */
  readonly keepAliveMs: number;
  readonly onOutcome: OutcomeSink;
  /**
   * Told the result of every channel attempt as it happens (the local circuit breaker):
   * `ok` false only for failures that are the channel's fault (failover-worthy errors).
   */
  readonly onAttempt?: (channelId: string, result: { ok: boolean; retryAfterMs?: number }) => void;
  /**
   * Per-channel RPM/TPM limits: a channel at its limit is skipped (not a failure); when every
   * candidate is, the client gets `rate-limited` (429). None: channels are unlimited.
   */
  readonly channelLimits?: ChannelLimits;
  /**
   * The channels' key pools (routing/credential-pool.ts, README "Key pools"): which credential an
   * attempt uses, cooldowns shared across nodes. None: each request rotates on its own, no cooldown is kept.
   */
  readonly credentialPool?: CredentialPool;
  /** Most channels tried for one request; skipped channels do not count (default 4, routing/failover-policy.ts). */
  readonly maxAttempts?: number;
  /**
   * Total time for one client request across all its failover attempts, from arrival, ms
   * (TOLLGATE_REQUEST_DEADLINE_MS; default DEFAULT_REQUEST_DEADLINE_MS, 15 min).
   */
  readonly requestDeadlineMs?: number;
  /**
   * The node's drain deadline (lifecycle/node-drain.ts): when it aborts, every upstream attempt
   * still running ends with a `shutting-down` error. None: attempts are never cut by a drain.
   */
  readonly drainDeadline?: ClientGoneSignal;
  /** Strategies, affinity, fallback chains and retries; none: weighted order, no affinity, no fallbacks, no retries. */
  readonly routing?: ExchangeRouting;
}

/** What routing beyond the weighted order needs (ExchangeDeps.routing). */
export interface ExchangeRouting {
  /** The config's `routing` section (defaults filled). */
  readonly settings: RoutingSettings;
  /** Conversation pins; none: no affinity. */
  readonly affinity?: PromptCacheAffinity;
  /** Latency and in-flight counts per channel (`latency`, `least-busy`); none: those strategies see no difference. */
  readonly signals?: RoutingSignals;
  /** The request's expected cost on a channel, USD (`cost`); undefined: the channel's model has no price. */
  readonly costOf?: (channel: Channel, input: ExchangeInput) => number | undefined;
  /** Counts one attempt in flight on a channel (`least-busy`); the returned function ends it. */
  readonly beginAttempt?: (channelId: string) => () => void;
}

/** One decoded client request. */
export interface ExchangeInput {
  readonly requestId: string;
  readonly codec: InboundCodec;
  readonly request: CanonicalRequest;
  readonly rawBody: Readonly<Record<string, unknown>>;
  /** Arrival time, ms since epoch (`Date.now()`). */
  readonly startedAt: number;
  /** Decode warnings to log with the outcome: parts dropped as safe to lose. */
  readonly warnings: ReadonlyArray<string>;
  /**
   * Parts of the client's request the canonical model cannot hold: the request can only be passed
   * through unchanged to a channel of the client's own protocol, and is refused by name elsewhere.
   */
  readonly uncarried: ReadonlyArray<UncarriedPart>;
  /** Who is calling: the API key's id and its owner, if any. */
  readonly identity: { readonly keyId: string; readonly userId: string | null };
  /** Who the request is spent for: team, end user, tags (policy/request-attribution.ts); none: NO_ATTRIBUTION. */
  readonly attribution?: RequestAttribution;
  /** The budget windows admission reserved in, carried into the outcome; none: no budget applied. */
  readonly budgetCounters?: ReadonlyArray<BudgetCounter>;
  /** Sees (and may amend) the final answer before the client gets it (Responses `store`); none: nothing is kept. */
  readonly answerHook?: ClientAnswerHook;
  /**
   * Aborts when the client leaves, watched from the start of the route handler
   * (http/client-departure.ts); none: the exchange watches the response's `close` itself.
   */
  readonly clientGone?: ClientGoneSignal;
  /** The conversation's affinity key (routing/prompt-cache-affinity.ts affinityKeyOf); none: no affinity. */
  readonly affinityKey?: AffinityKey;
  /** Whether the key and its team may use a model (fallback models they may not use are skipped); none: any. */
  readonly mayUseModel?: (model: string) => boolean;
  /** The request's input tokens as estimated for admission (tokens); none: estimated when needed. */
  readonly inputTokens?: () => number;
  /** The model the client asked for, when `request.model` is a fallback model of its chain; none: not a fallback. */
  readonly fallbackFrom?: string;
  /**
   * The body holds something only the translated path can carry (a gateway-sealed Responses
   * compaction item): it is never passed through unchanged. None: pass-through-policy.ts decides.
   */
  readonly mustTranslate?: boolean;
  /**
   * The pooled credential to try first on a channel when it is usable (prompt-cache affinity: the
   * credential that served the conversation last); none: the pool's own order.
   */
  readonly preferredCredentialId?: string;
}
