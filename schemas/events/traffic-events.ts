/**
 * The traffic events the gateway emits for every request: past-tense facts with
 * `eventId` (unique), `occurredAt` (ms since epoch) and `requestId`. These TypeScript types are
 * checked by the compiler against the Avro schemas in ./avro (see avro-schemas.ts): the
 * assertions in avro-schema-type-checks.ts break `tsc --noEmit` on any drift. Encode and decode
 * with traffic-event-codec.ts; change a schema only as EVOLUTION.md says.
 */

/** Where the usage numbers of a request a channel served came from. */
export type UsageSource = 'reported' | 'estimated' | 'partial';

/** Where a request's usage numbers came from: a served source, or `none` when it got no usage at all (all counts 0). */
export type RequestUsageSource = UsageSource | 'none';

/** Token counts of a request a channel served (tokens) and their source. `inputTokens` includes cached; `outputTokens` includes reasoning. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  readonly usageSource: UsageSource;
}

/** The five token counts alone (tokens), whatever their source: what prices apply to. */
export type TokenCounts = Omit<TokenUsage, 'usageSource'>;

/** Token counts of any request (tokens) and their source, as RequestCompleted carries them. */
export interface RequestTokenUsage extends TokenCounts {
  /** `none` when the request got no usage (refused, failed or cancelled before any was reported or estimated; every count 0); never in events before version 5. */
  readonly usageSource: RequestUsageSource;
}

/** How a request ended. */
export type RequestStatus = 'completed' | 'failed' | 'cancelled';

/** One client request finished (any outcome). Topic `tollgate.requests`, key = requestId. */
export interface RequestCompleted {
  readonly eventId: string;
  /** ms since epoch */
  readonly occurredAt: number;
  readonly requestId: string;
  readonly keyId: string;
  readonly userId: string | null;
  /** openai-responses | openai-chat | anthropic-messages | gemini */
  readonly clientFormat: string;
  /** The model as the client asked for it. */
  readonly model: string;
  readonly channelId: string | null;
  readonly provider: string | null;
  readonly upstreamModel: string | null;
  readonly stream: boolean;
  readonly passThrough: boolean;
  readonly status: RequestStatus;
  /** HTTP status sent to the client (499 when it went away before an answer). */
  readonly httpStatus: number;
  readonly errorKind: string | null;
  /** ms from arrival to the last byte */
  readonly latencyMs: number;
  /** ms from arrival to the first byte sent; null when nothing was sent */
  readonly ttfbMs: number | null;
  /** channels tried, including the one that served */
  readonly attempts: number;
  readonly usage: RequestTokenUsage;
  /** PriceSet events the gateway node had applied when it built the event: the price book the request is billed with; null in older events. */
  readonly priceRevision: number | null;
  /** The upstream's own id of the call that served (or failed last), from its response headers; null when none was sent, and in older events. */
  readonly upstreamRequestId: string | null;
  /** ms since epoch when the request arrived (occurredAt - latencyMs, up to rounding); null in events before version 5. */
  readonly startedAt: number | null;
}

/** Usage of a request a channel served. Topic `tollgate.usage`, key = requestId. */
export interface UsageRecorded extends TokenUsage {
  readonly eventId: string;
  readonly occurredAt: number;
  readonly requestId: string;
  readonly keyId: string;
  readonly userId: string | null;
  readonly model: string;
  /** The model the upstream served (after modelMap): what prices apply to. */
  readonly upstreamModel: string;
  readonly channelId: string;
  readonly provider: string;
  /** PriceSet events the gateway node had applied when it built the event: the price book the request is billed with; null in older events. */
  readonly priceRevision: number | null;
}

/** A channel failed and the router moved on (or gave up). Topic `tollgate.failovers`, key = requestId. */
export interface FailoverOccurred {
  readonly eventId: string;
  readonly occurredAt: number;
  readonly requestId: string;
  readonly keyId: string;
  readonly model: string;
  /** The channel that failed. */
  readonly channelId: string;
  readonly errorKind: string;
  readonly upstreamStatus: number | null;
  /** ms spent on the failed attempt */
  readonly latencyMs: number;
  /** ms the upstream asked to wait (Retry-After), if any */
  readonly retryAfterMs: number | null;
  readonly nextChannelId: string | null;
}

/** Any traffic event, tagged by its schema name. */
export type TrafficEvent =
  | { readonly type: 'RequestCompleted'; readonly event: RequestCompleted }
  | { readonly type: 'UsageRecorded'; readonly event: UsageRecorded }
  | { readonly type: 'FailoverOccurred'; readonly event: FailoverOccurred };
