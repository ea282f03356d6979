/**
 * The current Avro schemas of the traffic events (namespace `tollgate.events`): the `.avsc` files
 * in ./avro, the source of truth, imported as `as const` data from avro-files.generated.ts
 * (infra/build/generate-avro-modules.ts writes it), so the compiler derives the events'
 * TypeScript types from them (traffic-events.ts).
 *
 * Conventions: field names are the TypeScript names (camelCase); `occurredAt` is a `long` with
 * logicalType `timestamp-millis` that decodes to a plain number of ms since epoch (no avsc
 * logical type is registered for it); nullable fields are `["null", T]` with default `null`.
 * `priceRevision` counts the PriceSet events the gateway node had applied from the config topic
 * when it built the event: billing prices the request with the price book as of that revision
 * (schemas/control-plane/price-history.ts); null in events written before the field existed.
 * Changing a schema: follow EVOLUTION.md (copy the outgoing version into ./avro/history first).
 */
import {
  budgetThresholdCrossedAvsc,
  failoverOccurredAvsc,
  requestCompletedAvsc,
  usageRecordedAvsc,
} from './avro-files.generated.ts';

/** Namespace of every traffic event schema. */
export const TRAFFIC_EVENTS_NAMESPACE = 'tollgate.events';

/** Schema of RequestCompleted (./avro/request-completed.avsc). */
export const requestCompletedSchema = requestCompletedAvsc;

/** Schema of UsageRecorded (./avro/usage-recorded.avsc). */
export const usageRecordedSchema = usageRecordedAvsc;

/** Schema of FailoverOccurred (./avro/failover-occurred.avsc). */
export const failoverOccurredSchema = failoverOccurredAvsc;

/** Schema of BudgetThresholdCrossed (./avro/budget-threshold-crossed.avsc). */
export const budgetThresholdCrossedSchema = budgetThresholdCrossedAvsc;

/**
 * The current schema of each traffic event, by TrafficEvent `type`, with the file name (under
 * ./avro) that holds it.
 */
export const CURRENT_TRAFFIC_SCHEMAS = {
  RequestCompleted: { schema: requestCompletedSchema, file: 'request-completed.avsc' },
  UsageRecorded: { schema: usageRecordedSchema, file: 'usage-recorded.avsc' },
  FailoverOccurred: { schema: failoverOccurredSchema, file: 'failover-occurred.avsc' },
  BudgetThresholdCrossed: { schema: budgetThresholdCrossedSchema, file: 'budget-threshold-crossed.avsc' },
} as const;

/** The `type` tag of a TrafficEvent, which is also its schema's short name. */
export type TrafficEventType = keyof typeof CURRENT_TRAFFIC_SCHEMAS;
