/**
 * The traffic events the gateway emits for every request: past-tense facts with
 * `eventId` (unique), `occurredAt` (ms since epoch) and `requestId`. Their TypeScript types are
 * derived by the compiler from the current Avro schemas (./avro/*.avsc, imported as data through
 * avro-schemas.ts; AvroToTs in avro-to-ts.ts), so a schema change changes them: the fields, their
 * units and meanings are documented once, in the `.avsc` files' `doc` attributes. Encode and
 * decode with traffic-event-codec.ts; change a schema only as EVOLUTION.md says.
 */
import type { AvroToTs } from './avro-to-ts.ts';
import type {
  budgetThresholdCrossedSchema,
  failoverOccurredSchema,
  requestCompletedSchema,
  usageRecordedSchema,
} from './avro-schemas.ts';

/**
 * One client request finished (any outcome). Topic `tollgate.requests`, key = requestId.
 * Fields: ./avro/request-completed.avsc (times in ms since epoch, durations in ms, `userId`,
 * `channelId`, `provider`, `upstreamModel`, `errorKind`, `ttfbMs`, `priceRevision`,
 * `upstreamRequestId`, `startedAt`, `teamId` and `endUserId` nullable; `tags` each `name=value`).
 */
export type RequestCompleted = AvroToTs<typeof requestCompletedSchema>;

/** Usage of a request a channel served (token counts flat in the event). Topic `tollgate.usage`, key = requestId. Fields: ./avro/usage-recorded.avsc. */
export type UsageRecorded = AvroToTs<typeof usageRecordedSchema>;

/** A channel failed and the router moved on (or gave up). Topic `tollgate.failovers`, key = requestId. Fields: ./avro/failover-occurred.avsc. */
export type FailoverOccurred = AvroToTs<typeof failoverOccurredSchema>;

/**
 * A budget window's billed spend reached one of its alert thresholds (published by the consumers,
 * not the gateway). Topic `tollgate.alerts`, key = budgetId; `eventId` is the alert id
 * `<budgetId>@<windowStartMs>:<thresholdPercent>`, the same however often it is published.
 * Fields: ./avro/budget-threshold-crossed.avsc (nano-USD as decimal digit strings).
 */
export type BudgetThresholdCrossed = AvroToTs<typeof budgetThresholdCrossedSchema>;

/** Where the usage numbers of a request a channel served came from: `reported`, `estimated` or `partial`. */
export type UsageSource = UsageRecorded['usageSource'];

/** Token counts of any request (tokens) and their source, as RequestCompleted carries them. `inputTokens` includes cached; `outputTokens` includes reasoning. */
export type RequestTokenUsage = RequestCompleted['usage'];

/** Where a request's usage numbers came from: a served source, or `none` when it got no usage at all (all counts 0; never in events before version 5). */
export type RequestUsageSource = RequestTokenUsage['usageSource'];

/** The five token counts alone (tokens), whatever their source: what prices apply to. */
export type TokenCounts = Omit<RequestTokenUsage, 'usageSource'>;

/** Token counts of a request a channel served (tokens) and their source. */
export type TokenUsage = {
  readonly [Field in keyof RequestTokenUsage]: Field extends 'usageSource' ? UsageSource : RequestTokenUsage[Field];
};

/** How a request ended: `completed`, `failed` or `cancelled`. */
export type RequestStatus = RequestCompleted['status'];

/** Any traffic event, tagged by its schema name. */
export type TrafficEvent =
  | { readonly type: 'RequestCompleted'; readonly event: RequestCompleted }
  | { readonly type: 'UsageRecorded'; readonly event: UsageRecorded }
  | { readonly type: 'FailoverOccurred'; readonly event: FailoverOccurred }
  | { readonly type: 'BudgetThresholdCrossed'; readonly event: BudgetThresholdCrossed };
