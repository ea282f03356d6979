/**
 * Avro single-object encoding of traffic events (Avro spec, "Single-object encoding"):
 * `C3 01` marker, the 8-byte little-endian CRC-64-AVRO fingerprint of the writer schema's
 * Parsing Canonical Form, then the Avro binary datum. Encoding always uses the current schema;
 * decoding accepts the current and every historical version (traffic-schema-registry.ts) and
 * resolves it into the current TypeScript shape, filling fields the writer lacked with their
 * schema defaults.
 */
import type { TrafficEventType } from './avro-schemas.ts';
import type {
  BudgetThresholdCrossed,
  FailoverOccurred,
  RequestCompleted,
  TrafficEvent,
  UsageRecorded,
} from './traffic-events.ts';
import { decodeSingleObject, encodeSingleObject } from './single-object-registry.ts';
import { trafficSchemaRegistry, TRAFFIC_SCHEMA_FAMILY, type TrafficSchemaRegistry } from './traffic-schema-registry.ts';

/**
 * The process-wide registry of schemas (immutable data), loaded when this module is imported:
 * at start-up, off the request path, and a broken history file fails the start.
 */
const registry: TrafficSchemaRegistry = trafficSchemaRegistry();

/**
 * Encodes an event with its current schema as an Avro single-object message.
 *
 * @returns `C3 01` + 8-byte LE fingerprint + Avro binary body
 * @throws Error when the event does not fit its schema (e.g. a non-integer or unsafe `long`,
 *   a missing string, an unknown enum symbol)
 */
export function encodeTrafficEvent(event: TrafficEvent): Buffer {
  return encodeSingleObject(registry, event.type, event.event);
}

/**
 * Decodes an Avro single-object message written with any registered version of a traffic
 * event schema into the current shape (plain objects; `null` for absent nullable values).
 *
 * @throws Error `not an Avro single-object message …` when the marker is missing or the value
 *   is shorter than the 10-byte header; `unknown writer schema fingerprint …` when no
 *   registered schema has that fingerprint; `cannot decode …` when the body does not match
 *   the writer schema (truncated, trailing bytes, bad enum index); see decodeSingleObject.
 */
export function decodeTrafficEvent(value: Buffer): TrafficEvent {
  const { eventType, datum } = decodeSingleObject(registry, TRAFFIC_SCHEMA_FAMILY.label, value);
  return toTrafficEvent(eventType, datum);
}

/**
 * The Kafka key of a traffic event: its request id (one request's events stay in one partition, in
 * order); for a BudgetThresholdCrossed, its budget id (one budget's alerts stay in order).
 */
export function trafficEventKey(event: TrafficEvent): string {
  return event.type === 'BudgetThresholdCrossed' ? event.event.budgetId : event.event.requestId;
}

/** avsc decodes records into instances of generated classes; copy them into plain objects. */
function toTrafficEvent(eventType: TrafficEventType, decoded: unknown): TrafficEvent {
  switch (eventType) {
    case 'RequestCompleted': {
      const event = decoded as RequestCompleted;
      return { type: eventType, event: { ...event, usage: { ...event.usage } } };
    }
    case 'UsageRecorded': {
      const event = decoded as UsageRecorded;
      const counters = event.budgetCounters;
      return {
        type: eventType,
        event: { ...event, budgetCounters: counters.length === 0 ? counters : counters.map((c) => ({ ...c })) },
      };
    }
    case 'FailoverOccurred':
      return { type: eventType, event: { ...(decoded as FailoverOccurred) } };
    case 'BudgetThresholdCrossed':
      return { type: eventType, event: { ...(decoded as BudgetThresholdCrossed) } };
  }
}
