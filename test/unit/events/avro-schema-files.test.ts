import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CURRENT_TRAFFIC_SCHEMAS, requestCompletedSchema } from '../../../schemas/events/avro-schemas.ts';
import type { AvroToTs, Assert, Equals } from '../../../schemas/events/avro-to-ts.ts';
import {
  DEFAULT_SCHEMA_HISTORY_DIR,
  loadTrafficSchemaRegistry,
} from '../../../infra/build/load-schema-registry-from-dir.ts';
import type { RequestCompleted } from '../../../schemas/events/traffic-events.ts';

const AVRO_DIR = fileURLToPath(new URL('../../../schemas/events/avro/', import.meta.url));

// Type-level negatives, checked by `tsc --noEmit`: if AvroToTs or Equals became vacuous, these
// expect-error directives would be unused and the type-check would fail.
type RequestCompletedFields = (typeof requestCompletedSchema)['fields'][number];
type SchemaWithFields<F> = Omit<typeof requestCompletedSchema, 'fields'> & { readonly fields: ReadonlyArray<F> };
export type SameFieldsAreRequestCompleted = Assert<
  Equals<AvroToTs<SchemaWithFields<RequestCompletedFields>>, RequestCompleted>
>;
// Each negative below stays on one line: an expect-error directive covers the next line only.
type WithoutTtfb = AvroToTs<SchemaWithFields<Exclude<RequestCompletedFields, { name: 'ttfbMs' }>>>;
type WithExtraField = AvroToTs<SchemaWithFields<RequestCompletedFields | { name: 'extra'; type: 'int' }>>;
// @ts-expect-error a schema without ttfbMs is not RequestCompleted
export type WithoutTtfbIsNotRequestCompleted = Assert<Equals<WithoutTtfb, RequestCompleted>>;
// @ts-expect-error a schema with an extra field is not RequestCompleted
export type ExtraFieldIsNotRequestCompleted = Assert<Equals<WithExtraField, RequestCompleted>>;
// @ts-expect-error nullability counts: ["null","string"] is not string
export type NullableIsNotPlain = Assert<Equals<AvroToTs<readonly ['null', 'string']>, string>>;
// @ts-expect-error enum symbols count
export type EnumSymbolsCount = Assert<Equals<AvroToTs<{ type: 'enum'; name: 'E'; symbols: readonly ['a', 'b'] }>, 'a'>>;
export type PositiveMappings = [
  Assert<Equals<AvroToTs<readonly ['null', 'long']>, number | null>>,
  Assert<Equals<AvroToTs<{ type: 'long'; logicalType: 'timestamp-millis' }>, number>>,
  Assert<
    Equals<
      AvroToTs<{ type: 'record'; name: 'R'; fields: readonly [{ name: 'a'; type: 'boolean' }] }>,
      { readonly a: boolean }
    >
  >,
];

describe('Avro schema files', () => {
  it.each(Object.entries(CURRENT_TRAFFIC_SCHEMAS))('avro/%s equals its TS object', (eventType, { schema, file }) => {
    const json: unknown = JSON.parse(readFileSync(join(AVRO_DIR, file), 'utf8'));
    expect(json, `${file} drifted from avro-schemas.ts (${eventType}); write the TS object to the file`).toEqual(
      schema,
    );
  });

  it('has exactly one current .avsc per event', () => {
    const files = readdirSync(AVRO_DIR)
      .filter((f) => f.endsWith('.avsc'))
      .sort();
    expect(files).toEqual(
      Object.values(CURRENT_TRAFFIC_SCHEMAS)
        .map((s) => s.file)
        .sort(),
    );
  });

  it('registers the current and every historical schema, each with its own fingerprint', () => {
    const registry = loadTrafficSchemaRegistry();
    const versions = registry.all().map((s) => `${s.eventType}@${String(s.version)}`);
    expect(versions).toEqual([
      'RequestCompleted@current',
      'UsageRecorded@current',
      'FailoverOccurred@current',
      'BudgetThresholdCrossed@current',
      'RequestCompleted@1',
      'RequestCompleted@2',
      'RequestCompleted@3',
      'RequestCompleted@4',
      'RequestCompleted@5',
      'RequestCompleted@6',
      'RequestCompleted@7',
      'UsageRecorded@1',
      'UsageRecorded@2',
      'UsageRecorded@3',
      'UsageRecorded@4',
    ]);
    expect(new Set(registry.all().map((s) => s.fingerprint)).size).toBe(15);
    for (const entry of registry.all()) {
      expect(registry.byFingerprintHex(entry.header.toString('hex', 2))).toBe(entry);
      expect(entry.header.subarray(0, 2).toString('hex')).toBe('c301');
    }
    expect(readdirSync(DEFAULT_SCHEMA_HISTORY_DIR)).toContain('request-completed.v1.avsc');
  });

  it('refuses a history file the current schema cannot read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-history-'));
    const v0 = { ...requestCompletedSchema, fields: requestCompletedSchema.fields.filter((f) => f.name !== 'stream') };
    writeFileSync(join(dir, 'request-completed.v0.avsc'), JSON.stringify(v0));
    expect(() => loadTrafficSchemaRegistry(dir)).toThrow(
      /request-completed\.v0\.avsc cannot be read by the current schema/,
    );
  });

  it('refuses a history file named for another event', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-history-'));
    writeFileSync(join(dir, 'usage-recorded.v1.avsc'), JSON.stringify(requestCompletedSchema));
    expect(() => loadTrafficSchemaRegistry(dir)).toThrow(/holds RequestCompleted/);
  });
});
