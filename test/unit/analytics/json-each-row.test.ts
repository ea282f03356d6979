/**
 * JSONEachRow text for inserts: one object per line, keys in row order, strings escaped as JSON,
 * Decimal values as bare exact literals (ClickHouse 18.16 rejects quoted decimals), non-finite
 * numbers as null.
 */
import { describe, expect, it } from 'vitest';
import { Decimal, toJsonEachRow } from '../../../schemas/analytics/analytics-store.ts';

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
