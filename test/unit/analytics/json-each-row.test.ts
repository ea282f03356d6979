/**
 * JSONEachRow text for inserts: one object per line, keys in row order, strings escaped as JSON,
 * Decimal values as bare exact literals (ClickHouse 18.16 rejects quoted decimals), non-finite
 * numbers as null. JSONCompactEachRow text: the same values as one array per line, or no text
 * at all when the rows do not share the first row's keys. Decimal text: exact on both sides of
 * 2^53 nano-units.
 */
import { describe, expect, it } from 'vitest';
import { Decimal, toJsonCompactEachRow, toJsonEachRow } from '../../../schemas/analytics/analytics-store.ts';

describe('toJsonEachRow', () => {
  it('writes one JSON object per row with decimals bare and strings escaped', () => {
    const text = toJsonEachRow([
      {
        event_id: 'e1',
        model: 'gpt-"4o"\n\u0000',
        cost_usd: new Decimal(1_234n),
        tokens: 42,
        stream: true,
        upstream: null,
      },
      {
        event_id: 'e2',
        model: 'm',
        cost_usd: new Decimal(-5_000_000_001n),
        tokens: Number.NaN,
        stream: false,
        upstream: 'x',
      },
    ]);
    const lines = text.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      '{"event_id":"e1","model":"gpt-\\"4o\\"\\n\\u0000","cost_usd":0.000001234,"tokens":42,"stream":true,"upstream":null}',
    );
    expect(lines[1]).toBe(
      '{"event_id":"e2","model":"m","cost_usd":-5.000000001,"tokens":null,"stream":false,"upstream":"x"}',
    );
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      event_id: 'e1',
      model: 'gpt-"4o"\n\u0000',
      cost_usd: 0.000001234,
      tokens: 42,
      stream: true,
      upstream: null,
    });
  });

  it('writes nothing for no rows', () => {
    expect(toJsonEachRow([])).toBe('');
  });
});

describe('toJsonCompactEachRow', () => {
  const rows = [
    { event_id: 'e1', model: 'gpt-"4o"\n', cost_usd: new Decimal(1_234n), tokens: 42, stream: true, tags: ['a', 'b'] },
    { event_id: 'e2', model: 'm', cost_usd: new Decimal(-5_000_000_001n), tokens: Number.NaN, stream: false, tags: [] },
  ];

  it('writes the values of each row as one JSON array per line, in the first row’s key order', () => {
    const compact = toJsonCompactEachRow(rows);
    expect(compact?.columns).toEqual(['event_id', 'model', 'cost_usd', 'tokens', 'stream', 'tags']);
    expect(compact?.text.split('\n')).toEqual([
      '["e1","gpt-\\"4o\\"\\n",0.000001234,42,true,["a","b"]]',
      '["e2","m",-5.000000001,null,false,[]]',
    ]);
  });

  it('renders every value as toJsonEachRow does', () => {
    const compact = toJsonCompactEachRow(rows);
    const objects = toJsonEachRow(rows)
      .split('\n')
      .map((line) => Object.values(JSON.parse(line) as Record<string, unknown>));
    expect(compact?.text.split('\n').map((line) => JSON.parse(line) as unknown)).toEqual(objects);
  });

  it('gives up on rows whose keys differ from the first row’s, in name, number or order', () => {
    expect(
      toJsonCompactEachRow([
        { a: 1, b: 2 },
        { a: 1, c: 2 },
      ]),
    ).toBeUndefined();
    expect(toJsonCompactEachRow([{ a: 1, b: 2 }, { a: 1 }])).toBeUndefined();
    expect(toJsonCompactEachRow([{ a: 1 }, { a: 1, b: 2 }])).toBeUndefined();
    expect(
      toJsonCompactEachRow([
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ]),
    ).toBeUndefined();
  });

  it('gives up on a key that is not a plain column name', () => {
    expect(toJsonCompactEachRow([{ 'a) FORMAT Values (1': 1 }])).toBeUndefined();
    expect(toJsonCompactEachRow([{ 'two words': 1 }])).toBeUndefined();
  });

  it('writes nothing for no rows', () => {
    expect(toJsonCompactEachRow([])).toEqual({ columns: [], text: '' });
  });
});

describe('Decimal text', () => {
  /** The exact text by BigInt arithmetic alone. */
  const exact = (nano: bigint): string => {
    const abs = nano < 0n ? -nano : nano;
    return `${nano < 0n ? '-' : ''}${abs / 1_000_000_000n}.${(abs % 1_000_000_000n).toString().padStart(9, '0')}`;
  };

  it('is exact at the edges of whole units and of 2^53 nano-units', () => {
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    const edges = [0n, 1n, 999_999_999n, 1_000_000_000n, 1_000_000_001n, safe, safe + 1n, 999_999_999_999_999_999n];
    for (let units = 1n; units < safe / 1_000_000_000n; units *= 7n)
      edges.push(units * 1_000_000_000n - 1n, units * 1_000_000_000n, units * 1_000_000_000n + 1n);
    edges.push(9_007_199_000_000_000n - 1n, 9_007_199_000_000_000n, 9_007_198_999_999_999n);
    for (const nano of [...edges, ...edges.map((edge) => -edge)])
      expect(new Decimal(nano).toString(), String(nano)).toBe(exact(nano));
  });

  it('is exact for random amounts below 2^53 nano-units', () => {
    for (let i = 0; i < 20_000; i += 1) {
      const nano = BigInt(Math.floor(Math.random() * Number.MAX_SAFE_INTEGER)) * (i % 2 === 0 ? 1n : -1n);
      expect(new Decimal(nano).toString()).toBe(exact(nano));
    }
  });
});
