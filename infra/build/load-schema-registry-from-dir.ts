/**
 * The schema registries built from history FOLDERS of `.avsc` files rather than from the
 * generated data the processes import: for checking a folder of schema versions before it is
 * committed (a new history file that the current schema cannot read fails here as at start-up).
 */
import { fileURLToPath } from 'node:url';
import { controlSchemaRegistry } from '../../schemas/control-plane/control-event-codec.ts';
import type { ControlEventType } from '../../schemas/control-plane/control-avro-schemas.ts';
import type { SchemaRegistry } from '../../schemas/events/single-object-registry.ts';
import { trafficSchemaRegistry, type TrafficSchemaRegistry } from '../../schemas/events/traffic-schema-registry.ts';
import { readAvroFiles } from './generate-avro-modules.ts';

/** Folder of the historical traffic schema files (`<event-file-stem>.v<N>.avsc`). */
export const DEFAULT_SCHEMA_HISTORY_DIR = fileURLToPath(new URL('../../schemas/events/avro/history/', import.meta.url));

/** Folder of the historical control schema files (`<event-file-stem>.v<N>.avsc`; may not exist yet). */
export const CONTROL_SCHEMA_HISTORY_DIR = fileURLToPath(
  new URL('../../schemas/control-plane/avro/history/', import.meta.url),
);

/**
 * The traffic registry from the current schemas and every `*.avsc` in `historyDir` (a missing folder holds none).
 * @throws Error when a history file is not valid JSON/Avro, names an unknown event, does not
 *   match its file name, cannot be resolved into the current schema, or two schemas share a fingerprint
 */
export function loadTrafficSchemaRegistry(historyDir: string = DEFAULT_SCHEMA_HISTORY_DIR): TrafficSchemaRegistry {
  return trafficSchemaRegistry(readAvroFiles(historyDir));
}

/**
 * The control registry from the current schemas and every `*.avsc` in `historyDir` (a missing folder holds none).
 * @throws Error as loadTrafficSchemaRegistry
 */
export function loadControlSchemaRegistry(
  historyDir: string = CONTROL_SCHEMA_HISTORY_DIR,
): SchemaRegistry<ControlEventType> {
  return controlSchemaRegistry(readAvroFiles(historyDir));
}
