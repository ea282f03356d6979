/**
 * The registry of every traffic event schema version a consumer may meet: the current schemas
 * (avro-schemas.ts) and every historical version kept in ./avro/history, looked up by their
 * CRC-64-AVRO fingerprint (the single-object encoding header). Each historical (writer) version
 * carries an avsc resolver into the current (reader) schema, built once at load time, so a
 * schema that the current one cannot read fails at start-up rather than at the first message.
 * The machinery is shared with the control events (single-object-registry.ts).
 */
import { fileURLToPath } from 'node:url';
import { CURRENT_TRAFFIC_SCHEMAS, TRAFFIC_EVENTS_NAMESPACE, type TrafficEventType } from './avro-schemas.ts';
import { loadSchemaRegistry, type RegisteredSchema as GenericRegisteredSchema, type SchemaFamily, type SchemaRegistry } from './single-object-registry.ts';

export { SINGLE_OBJECT_HEADER_LENGTH, SINGLE_OBJECT_MARKER } from './single-object-registry.ts';

/** Folder of the historical schema files (`<event-file-stem>.v<N>.avsc`). */
export const DEFAULT_SCHEMA_HISTORY_DIR = fileURLToPath(new URL('./avro/history/', import.meta.url));

/** One known writer schema of a traffic event (see single-object-registry.ts). */
export type RegisteredSchema = GenericRegisteredSchema<TrafficEventType>;

/** Lookup of traffic writer schemas by fingerprint, and of the current schema by event type. */
export type TrafficSchemaRegistry = SchemaRegistry<TrafficEventType>;

/** The traffic event family: namespace `tollgate.events`, schemas of avro-schemas.ts. */
export const TRAFFIC_SCHEMA_FAMILY: SchemaFamily<TrafficEventType> = { label: 'traffic', namespace: TRAFFIC_EVENTS_NAMESPACE, schemas: CURRENT_TRAFFIC_SCHEMAS };

/**
 * Builds the registry from the current schemas and every `*.vN.avsc` file in `historyDir`.
 *
 * @throws Error when a history file is not valid JSON/Avro, names an unknown event, does not
 *   match its file name, cannot be resolved into the current schema (an evolution rule was
 *   broken), or two different schemas share a fingerprint.
 */
export function loadTrafficSchemaRegistry(historyDir: string = DEFAULT_SCHEMA_HISTORY_DIR): TrafficSchemaRegistry {
  return loadSchemaRegistry(TRAFFIC_SCHEMA_FAMILY, historyDir);
}
