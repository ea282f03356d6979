/**
 * The registry of every traffic event schema version a consumer may meet: the current schemas
 * (avro-schemas.ts) and every historical version kept in ./avro/history, looked up by their
 * CRC-64-AVRO fingerprint (the single-object encoding header). Each historical (writer) version
 * carries an avsc resolver into the current (reader) schema, built once at load time, so a
 * schema that the current one cannot read fails at start-up rather than at the first message.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import { CURRENT_TRAFFIC_SCHEMAS, TRAFFIC_EVENTS_NAMESPACE, type TrafficEventType } from './avro-schemas.ts';
import { fingerprintToLittleEndian, schemaFingerprint64 } from './rabin-fingerprint.ts';

/** The two marker bytes that open every Avro single-object encoded message. */
export const SINGLE_OBJECT_MARKER: Readonly<Buffer> = Buffer.from([0xc3, 0x01]);

/** Length of the single-object header: marker (2 bytes) + little-endian fingerprint (8 bytes). */
export const SINGLE_OBJECT_HEADER_LENGTH = 10;

/** Folder of the historical schema files (`<event-file-stem>.v<N>.avsc`). */
export const DEFAULT_SCHEMA_HISTORY_DIR = fileURLToPath(new URL('./avro/history/', import.meta.url));

/** avsc options: unions as plain values (`null` or the value), no logical types (timestamp-millis stays a number of ms). */
const AVSC_OPTIONS = { wrapUnions: false, logicalTypes: {} } as const;

/** One known writer schema. */
export interface RegisteredSchema {
  readonly eventType: TrafficEventType;
  /** `current`, or the N of the history file `….vN.avsc`. */
  readonly version: 'current' | number;
  /** CRC-64-AVRO of the schema's Parsing Canonical Form (unsigned 64-bit). */
  readonly fingerprint: bigint;
  /** Marker + little-endian fingerprint: the first 10 bytes of every message written with this schema. */
  readonly header: Buffer;
  /** The avsc type of this (writer) schema. */
  readonly writerType: avro.Type;
  /** The current (reader) avsc type of the same event. */
  readonly readerType: avro.Type;
  /** Resolver writer → current reader; undefined when this is the current schema. */
  readonly resolver: avro.Resolver | undefined;
}

/** Lookup of writer schemas by fingerprint, and of the current schema by event type. */
export interface TrafficSchemaRegistry {
  /** The current schema of an event type (used to encode). */
  current(eventType: TrafficEventType): RegisteredSchema;
  /** A schema by the 8 fingerprint bytes as they appear in the header, as lowercase hex (16 chars). */
  byFingerprintHex(fingerprintHex: string): RegisteredSchema | undefined;
  /** Every registered schema, current ones first. */
  all(): ReadonlyArray<RegisteredSchema>;
}

/**
 * Builds the registry from the current schemas and every `*.vN.avsc` file in `historyDir`.
 *
 * @throws Error when a history file is not valid JSON/Avro, names an unknown event, does not
 *   match its file name, cannot be resolved into the current schema (an evolution rule was
 *   broken), or two different schemas share a fingerprint.
 */
export function loadTrafficSchemaRegistry(historyDir: string = DEFAULT_SCHEMA_HISTORY_DIR): TrafficSchemaRegistry {
  const byHex = new Map<string, RegisteredSchema>();
  const current = new Map<TrafficEventType, RegisteredSchema>();
  for (const [eventType, { schema }] of Object.entries(CURRENT_TRAFFIC_SCHEMAS) as Array<[TrafficEventType, (typeof CURRENT_TRAFFIC_SCHEMAS)[TrafficEventType]]>) {
    const type = avro.Type.forSchema(schema as unknown as avro.Schema, { ...AVSC_OPTIONS });
    const entry = register(byHex, { eventType, version: 'current', schema, writerType: type, readerType: type, resolver: undefined });
    current.set(eventType, entry);
  }
  for (const file of historyFiles(historyDir)) {
    const { eventType, version, schema } = readHistoryFile(historyDir, file);
    const readerType = (current.get(eventType) as RegisteredSchema).readerType;
    const writerType = avro.Type.forSchema(schema as avro.Schema, { ...AVSC_OPTIONS });
    const resolver = resolve(readerType, writerType, file);
    register(byHex, { eventType, version, schema, writerType, readerType, resolver });
  }
  const all = [...byHex.values()];
  return {
    current: (eventType) => current.get(eventType) as RegisteredSchema,
    byFingerprintHex: (hex) => byHex.get(hex),
    all: () => all,
  };
}

type Registration = Omit<RegisteredSchema, 'fingerprint' | 'header'> & { readonly schema: unknown };

function register(byHex: Map<string, RegisteredSchema>, registration: Registration): RegisteredSchema {
  const { schema, ...rest } = registration;
  const fingerprint = schemaFingerprint64(schema);
  const header = Buffer.concat([SINGLE_OBJECT_MARKER, fingerprintToLittleEndian(fingerprint)]);
  const hex = header.toString('hex', 2);
  const existing = byHex.get(hex);
  if (existing) {
    if (existing.eventType === rest.eventType) return existing; // the same schema kept twice: harmless
    throw new Error(`schema fingerprint ${hex} of ${rest.eventType} v${rest.version} collides with ${existing.eventType}`);
  }
  const entry: RegisteredSchema = { ...rest, fingerprint, header };
  byHex.set(hex, entry);
  return entry;
}

function historyFiles(historyDir: string): string[] {
  return readdirSync(historyDir).filter((name) => name.endsWith('.avsc')).sort();
}

function readHistoryFile(historyDir: string, file: string): { eventType: TrafficEventType; version: number; schema: unknown } {
  const match = /^([a-z0-9-]+)\.v(\d+)\.avsc$/.exec(file);
  if (!match) throw new Error(`schema history file ${file}: name must be <event>.v<N>.avsc`);
  const schema = JSON.parse(readFileSync(join(historyDir, file), 'utf8')) as { name?: unknown; namespace?: unknown };
  const fullName = typeof schema.name === 'string' && schema.name.includes('.') ? schema.name : `${String(schema.namespace)}.${String(schema.name)}`;
  const eventType = Object.keys(CURRENT_TRAFFIC_SCHEMAS).find((t) => `${TRAFFIC_EVENTS_NAMESPACE}.${t}` === fullName) as TrafficEventType | undefined;
  if (!eventType) throw new Error(`schema history file ${file}: ${fullName} is not a traffic event`);
  if (CURRENT_TRAFFIC_SCHEMAS[eventType].file !== `${match[1]}.avsc`) {
    throw new Error(`schema history file ${file}: holds ${eventType}, expected a name starting with ${CURRENT_TRAFFIC_SCHEMAS[eventType].file.replace('.avsc', '')}`);
  }
  return { eventType, version: Number(match[2]), schema };
}

function resolve(readerType: avro.Type, writerType: avro.Type, file: string): avro.Resolver {
  try {
    return readerType.createResolver(writerType);
  } catch (error) {
    throw new Error(`schema history file ${file} cannot be read by the current schema (see EVOLUTION.md): ${(error as Error).message}`);
  }
}
