/**
 * A registry of every Avro schema version of one family of events (traffic events in
 * schemas/events, control events in schemas/control-plane), looked up by the CRC-64-AVRO
 * fingerprint that opens each single-object encoded message, plus the single-object framing
 * itself (Avro spec, "Single-object encoding": `C3 01`, 8-byte little-endian fingerprint of the
 * writer schema's Parsing Canonical Form, Avro binary datum).
 *
 * A family = its current schemas (one per event type) and the earlier versions kept as history
 * files (`<event-file-stem>.v<N>.avsc`, handed in as data: avro-files.generated.ts). Each historical (writer) version carries an avsc resolver into
 * the current (reader) schema, built once at load time, so a schema the current one cannot read
 * fails at start-up rather than at the first message.
 */
import avro from 'avsc';
import { fingerprintToLittleEndian, schemaFingerprint64 } from './rabin-fingerprint.ts';

/** The two marker bytes that open every Avro single-object encoded message. */
export const SINGLE_OBJECT_MARKER: Readonly<Buffer> = Buffer.from([0xc3, 0x01]);

/** Length of the single-object header: marker (2 bytes) + little-endian fingerprint (8 bytes). */
export const SINGLE_OBJECT_HEADER_LENGTH = 10;

/** avsc options: unions as plain values (`null` or the value), no logical types (timestamp-millis stays a number of ms). */
const AVSC_OPTIONS = { wrapUnions: false, logicalTypes: {} } as const;

/** One known writer schema of event type `T`. */
export interface RegisteredSchema<T extends string = string> {
  readonly eventType: T;
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
export interface SchemaRegistry<T extends string = string> {
  /** The current schema of an event type (used to encode). */
  current(eventType: T): RegisteredSchema<T>;
  /** A schema by the 8 fingerprint bytes as they appear in the header, as lowercase hex (16 chars). */
  byFingerprintHex(fingerprintHex: string): RegisteredSchema<T> | undefined;
  /** Every registered schema, current ones first. */
  all(): ReadonlyArray<RegisteredSchema<T>>;
}

/** A family of event schemas. */
export interface SchemaFamily<T extends string> {
  /** Word used in error messages (`traffic`, `control`): "… is not a <label> event". */
  readonly label: string;
  /** Namespace of every schema of the family (e.g. `tollgate.events`). */
  readonly namespace: string;
  /** Current schema of each event type (its short name) and the `.avsc` file holding it as JSON. */
  readonly schemas: Readonly<Record<T, { readonly schema: unknown; readonly file: string }>>;
}

/** One history file: its name (`<event-file-stem>.v<N>.avsc`) and its schema (parsed JSON). */
export interface SchemaHistoryFile {
  readonly file: string;
  readonly schema: unknown;
}

/**
 * Builds the registry of a family from its current schemas and its history files (none yet is fine).
 *
 * @throws Error when a history file is not valid Avro, names an unknown event, does not
 *   match its file name, cannot be resolved into the current schema (an evolution rule was
 *   broken), or two different schemas share a fingerprint.
 */
export function loadSchemaRegistry<T extends string>(
  family: SchemaFamily<T>,
  history: ReadonlyArray<SchemaHistoryFile>,
): SchemaRegistry<T> {
  const byHex = new Map<string, RegisteredSchema<T>>();
  const current = new Map<T, RegisteredSchema<T>>();
  for (const [eventType, { schema }] of Object.entries(family.schemas) as Array<[T, { schema: unknown }]>) {
    const type = avro.Type.forSchema(schema as avro.Schema, { ...AVSC_OPTIONS });
    current.set(
      eventType,
      register(byHex, {
        eventType,
        version: 'current',
        schema,
        writerType: type,
        readerType: type,
        resolver: undefined,
      }),
    );
  }
  for (const { file, schema: fileSchema } of [...history].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : 0,
  )) {
    const { eventType, version, schema } = readHistoryFile(family, file, fileSchema);
    const readerType = (current.get(eventType) as RegisteredSchema<T>).readerType;
    const writerType = avro.Type.forSchema(schema as avro.Schema, { ...AVSC_OPTIONS });
    register(byHex, {
      eventType,
      version,
      schema,
      writerType,
      readerType,
      resolver: resolve(readerType, writerType, file),
    });
  }
  const all = [...byHex.values()];
  return {
    current: (eventType) => current.get(eventType) as RegisteredSchema<T>,
    byFingerprintHex: (hex) => byHex.get(hex),
    all: () => all,
  };
}

/**
 * Where encodeSingleObject writes a message before copying it out at its exact size; it grows to
 * the largest message seen up to ENCODE_SCRATCH_LIMIT (bytes). One per thread: an encode never
 * calls back into another.
 */
let encodeScratch = Buffer.allocUnsafe(8192);
/** Messages larger than this (bytes) are encoded into a buffer of their own, so one never stays held. */
const ENCODE_SCRATCH_LIMIT = 64 * 1024;

/**
 * Encodes `datum` with the current schema of `eventType` as a single-object message. The body is
 * written after the header in a scratch buffer (avsc's `Type#encode`), then copied once into a
 * buffer of its size from Node's pool: `toBuffer` and a concatenation made a zero-filled buffer of
 * its own per message, and a second copy.
 * @returns `C3 01` + 8-byte LE fingerprint + Avro binary body
 * @throws Error when the datum does not fit the schema (non-integer or unsafe `long`, missing string, unknown enum symbol)
 */
export function encodeSingleObject<T extends string>(
  registry: SchemaRegistry<T>,
  eventType: T,
  datum: unknown,
): Buffer {
  const { header, writerType } = registry.current(eventType);
  let end = writerType.encode(datum, encodeScratch, header.length);
  if (end < 0) {
    // A negative result is the bytes missing (https://github.com/mtth/avsc/wiki/API#typeencodeval-buf-pos).
    const needed = encodeScratch.length - end;
    if (needed > ENCODE_SCRATCH_LIMIT) {
      const message = Buffer.allocUnsafe(needed);
      header.copy(message, 0);
      writerType.encode(datum, message, header.length);
      return message;
    }
    encodeScratch = Buffer.allocUnsafe(Math.max(Math.min(encodeScratch.length * 2, ENCODE_SCRATCH_LIMIT), needed));
    end = writerType.encode(datum, encodeScratch, header.length);
  }
  const message = Buffer.allocUnsafe(end);
  header.copy(message, 0);
  encodeScratch.copy(message, header.length, header.length, end);
  return message;
}

/**
 * Decodes a single-object message written with any registered version into the current reader
 * shape (avsc values: records are class instances, copy them before handing them out).
 *
 * @throws Error `not an Avro single-object message …` (missing marker or shorter than 10 bytes);
 *   `unknown writer schema fingerprint …` (no registered schema has it); `cannot decode …` (the
 *   body does not match the writer schema: truncated, trailing bytes, bad enum index).
 */
export function decodeSingleObject<T extends string>(
  registry: SchemaRegistry<T>,
  label: string,
  value: Buffer,
): { readonly eventType: T; readonly datum: unknown } {
  if (
    value.length < SINGLE_OBJECT_HEADER_LENGTH ||
    value[0] !== SINGLE_OBJECT_MARKER[0] ||
    value[1] !== SINGLE_OBJECT_MARKER[1]
  ) {
    throw new Error(
      `not an Avro single-object message: expected marker c301 and a 10-byte header, got ${value.toString('hex', 0, Math.min(value.length, SINGLE_OBJECT_HEADER_LENGTH)) || 'nothing'} (${value.length} bytes)`,
    );
  }
  const fingerprintHex = value.toString('hex', 2, SINGLE_OBJECT_HEADER_LENGTH);
  const entry = registry.byFingerprintHex(fingerprintHex);
  if (!entry) {
    throw new Error(
      `unknown writer schema fingerprint ${fingerprintHex} (little-endian CRC-64-AVRO): not a registered ${label} event schema version`,
    );
  }
  try {
    return {
      eventType: entry.eventType,
      datum: entry.readerType.fromBuffer(value.subarray(SINGLE_OBJECT_HEADER_LENGTH), entry.resolver),
    };
  } catch (error) {
    throw new Error(
      `cannot decode ${entry.eventType} (writer version ${entry.version}, fingerprint ${fingerprintHex}): ${(error as Error).message}`,
    );
  }
}

type Registration<T extends string> = Omit<RegisteredSchema<T>, 'fingerprint' | 'header'> & {
  readonly schema: unknown;
};

function register<T extends string>(
  byHex: Map<string, RegisteredSchema<T>>,
  registration: Registration<T>,
): RegisteredSchema<T> {
  const { schema, ...rest } = registration;
  const fingerprint = schemaFingerprint64(schema);
  const header = Buffer.concat([SINGLE_OBJECT_MARKER, fingerprintToLittleEndian(fingerprint)]);
  const hex = header.toString('hex', 2);
  const existing = byHex.get(hex);
  if (existing) {
    if (existing.eventType === rest.eventType) return existing; // the same schema kept twice: harmless
    throw new Error(
      `schema fingerprint ${hex} of ${rest.eventType} v${rest.version} collides with ${existing.eventType}`,
    );
  }
  const entry: RegisteredSchema<T> = { ...rest, fingerprint, header };
  byHex.set(hex, entry);
  return entry;
}

function readHistoryFile<T extends string>(
  family: SchemaFamily<T>,
  file: string,
  fileSchema: unknown,
): { eventType: T; version: number; schema: unknown } {
  const match = /^([a-z0-9-]+)\.v(\d+)\.avsc$/.exec(file);
  if (!match) throw new Error(`schema history file ${file}: name must be <event>.v<N>.avsc`);
  const schema = fileSchema as { name?: unknown; namespace?: unknown };
  const fullName =
    typeof schema.name === 'string' && schema.name.includes('.')
      ? schema.name
      : `${String(schema.namespace)}.${String(schema.name)}`;
  const eventType = (Object.keys(family.schemas) as T[]).find((t) => `${family.namespace}.${t}` === fullName);
  if (!eventType) throw new Error(`schema history file ${file}: ${fullName} is not a ${family.label} event`);
  const expectedFile = family.schemas[eventType].file;
  if (expectedFile !== `${match[1]}.avsc`) {
    throw new Error(
      `schema history file ${file}: holds ${eventType}, expected a name starting with ${expectedFile.replace('.avsc', '')}`,
    );
  }
  return { eventType, version: Number(match[2]), schema };
}

function resolve(readerType: avro.Type, writerType: avro.Type, file: string): avro.Resolver {
  try {
    return readerType.createResolver(writerType);
  } catch (error) {
    throw new Error(
      `schema history file ${file} cannot be read by the current schema (see EVOLUTION.md): ${(error as Error).message}`,
    );
  }
}
