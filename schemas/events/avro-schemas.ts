/**
 * The current Avro schemas of the traffic events (namespace `tollgate.events`), as `as const`
 * literals so that the compiler can check them against the TypeScript interfaces in
 * traffic-events.ts (see avro-schema-type-checks.ts). The same schemas live as JSON in
 * ./avro/*.avsc for non-TypeScript consumers; a unit test keeps the two identical.
 *
 * Conventions: field names are the TypeScript names (camelCase); `occurredAt` is a `long` with
 * logicalType `timestamp-millis` that decodes to a plain number of ms since epoch (no avsc
 * logical type is registered for it); nullable fields are `["null", T]` with default `null`.
 * Changing a schema: follow EVOLUTION.md (copy the outgoing version into ./avro/history first).
 */

/** Namespace of every traffic event schema. */
export const TRAFFIC_EVENTS_NAMESPACE = 'tollgate.events';

/** `occurredAt`: ms since epoch, read as a plain number. */
const occurredAtField = {
  name: 'occurredAt',
  type: { type: 'long', logicalType: 'timestamp-millis' },
  doc: 'ms since epoch',
} as const;

/**
 * `priceRevision`: how many PriceSet events the gateway node had applied from the config topic
 * when it built the event. Billing prices the request with the price book as of that revision
 * (schemas/billing/price-history.ts); null in events written before the field existed.
 */
const priceRevisionField = {
  name: 'priceRevision',
  type: ['null', 'long'],
  default: null,
  doc: 'PriceSet events the gateway had applied: the price book this request is billed with',
} as const;

/** The five token counts of one request (tokens), shared by RequestCompleted and UsageRecorded. */
const tokenCountFields = [
  { name: 'inputTokens', type: 'long' },
  { name: 'cachedInputTokens', type: 'long' },
  { name: 'cacheWriteTokens', type: 'long' },
  { name: 'outputTokens', type: 'long' },
  { name: 'reasoningTokens', type: 'long' },
] as const;

/**
 * UsageRecorded's token counts and where they came from (flat in the event). A channel served, so
 * the source is one of the three a served request can have; the enum keeps its version-1 symbols.
 */
const servedTokenUsageFields = [
  ...tokenCountFields,
  { name: 'usageSource', type: { type: 'enum', name: 'UsageSource', symbols: ['reported', 'estimated', 'partial'] } },
] as const;

/**
 * RequestCompleted's nested TokenUsage record: the counts and their source, where `none` (added
 * in version 5, appended so the earlier symbols keep their positions) marks a request that got
 * no usage at all (refused, failed or cancelled before any was reported or estimated). Adding a
 * symbol is safe for new readers only: deploy the consumers before the gateway
 * (https://avro.apache.org/docs/1.11.1/specification/#schema-resolution, enums).
 */
const requestTokenUsageFields = [
  ...tokenCountFields,
  { name: 'usageSource', type: { type: 'enum', name: 'UsageSource', symbols: ['reported', 'estimated', 'partial', 'none'] } },
] as const;

/** Schema of RequestCompleted (topic tollgate.requests), version 5 (v1 to v4 are in avro/history). */
export const requestCompletedSchema = {
  type: 'record',
  name: 'RequestCompleted',
  namespace: 'tollgate.events',
  doc: 'One client request finished (any outcome).',
  fields: [
    { name: 'eventId', type: 'string' },
    occurredAtField,
    { name: 'requestId', type: 'string' },
    { name: 'keyId', type: 'string' },
    { name: 'userId', type: ['null', 'string'], default: null },
    { name: 'clientFormat', type: 'string', doc: 'openai-responses | openai-chat | anthropic-messages | gemini' },
    { name: 'model', type: 'string', doc: 'The model as the client asked for it.' },
    { name: 'channelId', type: ['null', 'string'], default: null },
    { name: 'provider', type: ['null', 'string'], default: null },
    { name: 'upstreamModel', type: ['null', 'string'], default: null },
    { name: 'stream', type: 'boolean' },
    { name: 'passThrough', type: 'boolean', default: false },
    {
      name: 'status',
      type: { type: 'enum', name: 'RequestStatus', symbols: ['completed', 'failed', 'cancelled'] },
    },
    { name: 'httpStatus', type: 'int', doc: 'HTTP status sent to the client (499: client went away).' },
    { name: 'errorKind', type: ['null', 'string'], default: null },
    { name: 'latencyMs', type: 'long', doc: 'ms from arrival to the last byte' },
    { name: 'ttfbMs', type: ['null', 'long'], default: null, doc: 'ms from arrival to the first byte sent' },
    { name: 'attempts', type: 'int', doc: 'channels tried, including the one that served' },
    {
      name: 'usage',
      type: {
        type: 'record',
        name: 'TokenUsage',
        doc: 'Token counts (tokens). inputTokens includes cached; outputTokens includes reasoning.',
        fields: requestTokenUsageFields,
      },
    },
    priceRevisionField,
    {
      name: 'upstreamRequestId',
      type: ['null', 'string'],
      default: null,
      doc: "The upstream's own id of the call that served (or failed last): its x-request-id or request-id response header",
    },
    {
      name: 'startedAt',
      type: ['null', { type: 'long', logicalType: 'timestamp-millis' }],
      default: null,
      doc: 'ms since epoch when the request arrived; null in events before version 5 (then occurredAt - latencyMs)',
    },
  ],
} as const;

/** Schema of UsageRecorded (topic tollgate.usage), version 2 (v1 is in avro/history). Token fields are flat (TS: extends TokenUsage). */
export const usageRecordedSchema = {
  type: 'record',
  name: 'UsageRecorded',
  namespace: 'tollgate.events',
  doc: 'Usage of a request a channel served.',
  fields: [
    { name: 'eventId', type: 'string' },
    occurredAtField,
    { name: 'requestId', type: 'string' },
    { name: 'keyId', type: 'string' },
    { name: 'userId', type: ['null', 'string'], default: null },
    { name: 'model', type: 'string', doc: 'The model as the client asked for it.' },
    { name: 'upstreamModel', type: 'string', doc: 'The model the upstream served: what prices apply to.' },
    { name: 'channelId', type: 'string' },
    { name: 'provider', type: 'string' },
    ...servedTokenUsageFields,
    priceRevisionField,
  ],
} as const;

/** Schema of FailoverOccurred (topic tollgate.failovers), version 1. */
export const failoverOccurredSchema = {
  type: 'record',
  name: 'FailoverOccurred',
  namespace: 'tollgate.events',
  doc: 'A channel failed and the router moved on (or gave up).',
  fields: [
    { name: 'eventId', type: 'string' },
    occurredAtField,
    { name: 'requestId', type: 'string' },
    { name: 'keyId', type: 'string' },
    { name: 'model', type: 'string' },
    { name: 'channelId', type: 'string', doc: 'The channel that failed.' },
    { name: 'errorKind', type: 'string' },
    { name: 'upstreamStatus', type: ['null', 'int'], default: null },
    { name: 'latencyMs', type: 'long', doc: 'ms spent on the failed attempt' },
    { name: 'retryAfterMs', type: ['null', 'long'], default: null, doc: 'ms the upstream asked to wait' },
    { name: 'nextChannelId', type: ['null', 'string'], default: null },
  ],
} as const;

/**
 * The current schema of each traffic event, by TrafficEvent `type`, with the file name (under
 * ./avro) that holds the same schema as JSON.
 */
export const CURRENT_TRAFFIC_SCHEMAS = {
  RequestCompleted: { schema: requestCompletedSchema, file: 'request-completed.avsc' },
  UsageRecorded: { schema: usageRecordedSchema, file: 'usage-recorded.avsc' },
  FailoverOccurred: { schema: failoverOccurredSchema, file: 'failover-occurred.avsc' },
} as const;

/** The `type` tag of a TrafficEvent, which is also its schema's short name. */
export type TrafficEventType = keyof typeof CURRENT_TRAFFIC_SCHEMAS;
