import { describe, expect, it } from 'vitest';
import { parsingCanonicalForm } from '../../../schemas/events/parsing-canonical-form.ts';
import {
  fingerprintToLittleEndian,
  rabinFingerprint64,
  schemaFingerprint64,
} from '../../../schemas/events/rabin-fingerprint.ts';

/**
 * Test vectors of the Avro project (share/test/data/schema-tests.txt): schema text, its Parsing
 * Canonical Form and its CRC-64-AVRO fingerprint as a signed Java long (null: none given).
 */
const VECTORS: ReadonlyArray<readonly [string, string, bigint | null]> = [
  ['"null"', '"null"', 7195948357588979594n],
  ['{"type":"null"}', '"null"', null],
  ['"boolean"', '"boolean"', -6970731678124411036n],
  ['{"type":"boolean"}', '"boolean"', null],
  ['"int"', '"int"', 8247732601305521295n],
  ['{"type":"int"}', '"int"', null],
  ['"long"', '"long"', -3434872931120570953n],
  ['"float"', '"float"', 5583340709985441680n],
  ['"double"', '"double"', -8181574048448539266n],
  ['"bytes"', '"bytes"', 5746618253357095269n],
  ['"string"', '"string"', -8142146995180207161n],
  ['[  ]', '[]', -1241056759729112623n],
  ['[ "int"  ]', '["int"]', -5232228896498058493n],
  ['[ "int" , {"type":"boolean"} ]', '["int","boolean"]', 5392556393470105090n],
  ['{"fields":[], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[]}', -4824392279771201922n],
  [
    '{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}',
    '{"name":"x.y.foo","type":"record","fields":[]}',
    5916914534497305771n,
  ],
  [
    '{"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"}',
    '{"name":"a.b.foo","type":"record","fields":[]}',
    -4616218487480524110n,
  ],
  [
    '{"fields":[], "type":"record", "name":"foo", "doc":"Useful info"}',
    '{"name":"foo","type":"record","fields":[]}',
    -4824392279771201922n,
  ],
  [
    '{"fields":[], "type":"record", "name":"foo", "doc":"foo", "aliases":["foo","bar"]}',
    '{"name":"foo","type":"record","fields":[]}',
    -4824392279771201922n,
  ],
  [
    '{"fields":[{"type":{"type":"boolean"}, "name":"f1"}], "type":"record", "name":"foo"}',
    '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"}]}',
    7843277075252814651n,
  ],
  [
    '{"fields":[{"type":"boolean","aliases":[],"name":"f1","default":"true"},{"order":"descending","name":"f2","doc":"Hello","type":"int"}],"type":"record","name":"foo"}',
    '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}',
    -4860222112080293046n,
  ],
  [
    '{"type":"enum", "name":"foo", "symbols":["A1"]}',
    '{"name":"foo","type":"enum","symbols":["A1"]}',
    -6342190197741309591n,
  ],
  [
    '{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}',
    '{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}',
    -4448647247586288245n,
  ],
  ['{"name":"foo","type":"fixed","size":15}', '{"name":"foo","type":"fixed","size":15}', 1756455273707447556n],
  [
    '{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}',
    '{"name":"x.y.z.foo","type":"fixed","size":32}',
    -3064184465700546786n,
  ],
  ['{ "items":{"type":"null"}, "type":"array"}', '{"type":"array","items":"null"}', -589620603366471059n],
  ['{ "values":"string", "type":"map"}', '{"type":"map","values":"string"}', -8732877298790414990n],
  [
    '{"name":"PigValue","type":"record","fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}',
    '{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}',
    -1759257747318642341n,
  ],
];

describe('Parsing Canonical Form and CRC-64-AVRO', () => {
  it.each(VECTORS)('%s', (input, canonical, signedFingerprint) => {
    const schema: unknown = JSON.parse(input);
    expect(parsingCanonicalForm(schema)).toBe(canonical);
    if (signedFingerprint !== null) expect(schemaFingerprint64(schema)).toBe(BigInt.asUintN(64, signedFingerprint));
  });

  it('fingerprints "int" as 0x7275d51a3f395c8f, written little-endian in the header', () => {
    const fingerprint = schemaFingerprint64('int');
    expect(fingerprint).toBe(0x7275d51a3f395c8fn);
    expect(fingerprintToLittleEndian(fingerprint).toString('hex')).toBe('8f5c393f1ad57572');
  });

  it('fingerprints the empty byte string as the polynomial EMPTY', () => {
    expect(rabinFingerprint64(new Uint8Array())).toBe(0xc15d213aa4d7a795n);
  });

  it('drops logical types, defaults and docs, and qualifies nested named types', () => {
    const schema = {
      type: 'record',
      name: 'Outer',
      namespace: 'a.b',
      doc: 'ignored',
      fields: [
        { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' }, default: 0 },
        { name: 'inner', type: { type: 'record', name: 'Inner', fields: [{ name: 'x', type: 'int' }] } },
        { name: 'again', type: 'Inner' },
        { name: 'other', type: { type: 'enum', name: 'c.E', symbols: ['A'] } },
      ],
    };
    expect(parsingCanonicalForm(schema)).toBe(
      '{"name":"a.b.Outer","type":"record","fields":[{"name":"at","type":"long"},' +
        '{"name":"inner","type":{"name":"a.b.Inner","type":"record","fields":[{"name":"x","type":"int"}]}},' +
        '{"name":"again","type":"a.b.Inner"},{"name":"other","type":{"name":"c.E","type":"enum","symbols":["A"]}}]}',
    );
  });
});
