/**
 * The record of one finished client request, built by the exchange and handed to the outcome
 * sink (the request log now; request/usage/failover events later).
 */
import type { ClientFormat } from '../canonical/formats.ts';
import type { GatewayErrorKind } from '../canonical/gateway-error.ts';
import type { Usage } from '../canonical/usage.ts';
import type { RequestAttribution } from '../policy/request-attribution.ts';
import type { BudgetCounter } from '../../schemas/state-store/budget-ledger.ts';

/** One channel that failed and was left for the next candidate. */
export interface FailoverRecord {
  readonly channelId: string;
  readonly errorKind: GatewayErrorKind;
  readonly upstreamStatus?: number;
  /** How long the upstream asked us to wait (Retry-After), ms. */
  readonly retryAfterMs?: number;
  /** Time spent on the failed attempt, ms. */
  readonly latencyMs: number;
  readonly nextChannelId?: string;
}

/** The operations a request can ask for (ExchangeOutcome.operation). */
export type ExchangeOperation = 'generation' | 'embedding';

/** How one request ended. */
export interface ExchangeOutcome {
  readonly requestId: string;
  /** The API key's id (never the key itself). */
  readonly keyId: string;
  /** The key's owner, when it has one. */
  readonly userId: string | null;
  readonly clientFormat: ClientFormat;
  /**
   * What the request asked for: a `generation` (chat, messages, responses, generateContent) or an
   * `embedding` (`/v1/embeddings`, `:embedContent`, `:batchEmbedContents`). Absent: generation.
   */
  readonly operation?: ExchangeOperation;
  /** Model as the client asked for it. */
  readonly model: string;
  readonly stream: boolean;
  /** `completed`; `failed` (error answer or error mid-stream); `cancelled` (client went away). */
  readonly status: 'completed' | 'failed' | 'cancelled';
  /** HTTP status sent to the client. */
  readonly httpStatus: number;
  readonly errorKind?: GatewayErrorKind;
  readonly errorMessage?: string;
  readonly channelId?: string;
  readonly provider?: string;
  readonly upstreamModel?: string;
  /**
   * The upstream's own id of the call that served (or failed last), from its `x-request-id` /
   * `request-id` response header; absent when no upstream answered or it sent none.
   */
  readonly upstreamRequestId?: string;
  /**
   * The pooled credential of the channel's last attempt (its id, never the key; README "Key
   * pools"); absent when no attempt was sent.
   */
  readonly credentialId?: string;
  /** Times the request moved to another credential of the same channel after a 429, 401 or 403 (not failovers). */
  readonly credentialRotations?: number;
  readonly passThrough: boolean;
  /** Channels tried, including the one that served. */
  readonly attempts: number;
  readonly failovers: ReadonlyArray<FailoverRecord>;
  readonly usage?: Usage;
  /** Arrival time of the request, ms since epoch (absent in outcomes built without it: then the end minus latencyMs). */
  readonly startedAt?: number;
  /** From request arrival to the last byte sent, ms. */
  readonly latencyMs: number;
  /** From request arrival to the first byte of the answer sent, ms. */
  readonly ttfbMs?: number;
  /** The request's team, end user and tags (policy/request-attribution.ts); absent: none of them. */
  readonly attribution?: RequestAttribution;
  /** The budget windows admission reserved in (their real cost is added to exactly these); absent: none. */
  readonly budgetCounters?: ReadonlyArray<BudgetCounter>;
  /**
   * Every model tried, in order, the requested one first, when its fallback chain was followed
   * (config `routing.models.<alias>.fallbacks`); absent: only the requested model was tried.
   */
  readonly modelChain?: ReadonlyArray<string>;
  /** The fallback model that answered, when it is not the requested one; absent: the requested model answered (or none did). */
  readonly answeredModel?: string;
  /**
   * How prompt-cache affinity ended (routing/prompt-cache-affinity.ts AffinityResult): `hit`,
   * `moved` or `new`; absent: affinity off or unavailable, or the request was not served.
   */
  readonly affinity?: 'hit' | 'moved' | 'new';
}

/** Receives every outcome; must not throw or block. */
export type OutcomeSink = (outcome: ExchangeOutcome) => void;
