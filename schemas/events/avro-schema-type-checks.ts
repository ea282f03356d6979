/**
 * Compile-time contract: each traffic event interface (traffic-events.ts) is exactly the type
 * its current Avro schema (avro-schemas.ts) decodes into. `tsc --noEmit` fails on any drift
 * (a renamed, retyped, added, removed or nullability-changed field, or a changed enum symbol).
 * This module exports nothing at run time; it exists to be type-checked.
 */
import type { AvroToTs, Assert, Equals } from './avro-to-ts.ts';
import type { failoverOccurredSchema, requestCompletedSchema, usageRecordedSchema } from './avro-schemas.ts';
import type { FailoverOccurred, RequestCompleted, RequestTokenUsage, UsageRecorded } from './traffic-events.ts';

type RequestCompletedUsageSchema = Extract<(typeof requestCompletedSchema)['fields'][number], { name: 'usage' }>['type'];

/** RequestCompleted ⇔ its schema. */
export type RequestCompletedMatchesSchema = Assert<Equals<AvroToTs<typeof requestCompletedSchema>, RequestCompleted>>;
/** The nested TokenUsage record ⇔ RequestTokenUsage. */
export type TokenUsageMatchesSchema = Assert<Equals<AvroToTs<RequestCompletedUsageSchema>, RequestTokenUsage>>;
/** UsageRecorded ⇔ its schema. */
export type UsageRecordedMatchesSchema = Assert<Equals<AvroToTs<typeof usageRecordedSchema>, UsageRecorded>>;
/** FailoverOccurred ⇔ its schema. */
export type FailoverOccurredMatchesSchema = Assert<Equals<AvroToTs<typeof failoverOccurredSchema>, FailoverOccurred>>;
