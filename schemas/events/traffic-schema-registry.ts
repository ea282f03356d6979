/**
 * The registry of every traffic event schema version a consumer may meet: the current schemas
 * (avro-schemas.ts) and every historical version kept in ./avro/history (as data:
 * avro-files.generated.ts), looked up by their
 * CRC-64-AVRO fingerprint (the single-object encoding header). Each historical (writer) version
 * carries an avsc resolver into the current (reader) schema, built once at load time, so a
 * schema that the current one cannot read fails at start-up rather than at the first message.
 * The machinery is shared with the control events (single-object-registry.ts).
 */
import { AVRO_HISTORY_FILES } from './avro-files.generated.ts';
import { CURRENT_TRAFFIC_SCHEMAS, TRAFFIC_EVENTS_NAMESPACE, type TrafficEventType } from './avro-schemas.ts';
import {
  loadSchemaRegistry,
  type RegisteredSchema as GenericRegisteredSchema,
  type SchemaFamily,
  type SchemaHistoryFile,
  type SchemaRegistry,
} from './single-object-registry.ts';

export { SINGLE_OBJECT_HEADER_LENGTH, SINGLE_OBJECT_MARKER } from './single-object-registry.ts';

/** One known writer schema of a traffic event (see single-object-registry.ts). */
export type RegisteredSchema = GenericRegisteredSchema<TrafficEventType>;

/** Lookup of traffic writer schemas by fingerprint, and of the current schema by event type. */
export type TrafficSchemaRegistry = SchemaRegistry<TrafficEventType>;

/** The traffic event family: namespace `tollgate.events`, schemas of avro-schemas.ts. */
export const TRAFFIC_SCHEMA_FAMILY: SchemaFamily<TrafficEventType> = {
  label: 'traffic',
  namespace: TRAFFIC_EVENTS_NAMESPACE,
  schemas: CURRENT_TRAFFIC_SCHEMAS,
};

/**
 * Builds the registry from the current schemas and the history files (default: ./avro/history's).
 *
 * @throws Error when a history file is not valid Avro, names an unknown event, does not
 *   match its file name, cannot be resolved into the current schema (an evolution rule was
 *   broken), or two different schemas share a fingerprint.
 */
export function trafficSchemaRegistry(
  history: ReadonlyArray<SchemaHistoryFile> = AVRO_HISTORY_FILES,
): TrafficSchemaRegistry {
  return loadSchemaRegistry(TRAFFIC_SCHEMA_FAMILY, history);
}
