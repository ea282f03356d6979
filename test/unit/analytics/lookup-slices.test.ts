/**
 * Lookups sliced by the text of their value lists: every slice's literals fit the budget, however
 * long the values; values keep their order; a string repeated within a set counts once per slice.
 */
import { describe, expect, it } from 'vitest';
import { LOOKUP_TEXT_BYTES, lookupSlicesByText, sqlLiteral } from '../../../schemas/analytics/analytics-store.ts';

/** Bytes of the value lists a slice renders: each set's distinct literals joined by commas. */
function renderedBytes(slice: ReadonlyArray<ReadonlyArray<string>>): number {
  const sets = slice[0]?.map((_, set) => new Set(slice.map((literals) => literals[set] as string))) ?? [];
  return sets.reduce((bytes, set) => bytes + Buffer.byteLength([...set].map((v) => sqlLiteral(v)).join(',')), 0);
}

describe('lookupSlicesByText', () => {
  it('keeps 10 000 UUID lines in a few slices, in order, each rendering under the budget', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => [
      '2026-11-30',
      `key-${i % 3}`,
      'model',
      'ch',
      crypto.randomUUID(),
    ]);
    const slices = lookupSlicesByText(lines, (line) => line);
    expect(slices.length).toBeGreaterThanOrEqual(4);
    expect(slices.length).toBeLessThanOrEqual(6);
    expect(slices.flat()).toEqual(lines);
    for (const slice of slices) expect(renderedBytes(slice)).toBeLessThanOrEqual(LOOKUP_TEXT_BYTES);
  });

  it('cuts slices by bytes, not count: long values with quotes and non-ASCII text make smaller ones', () => {
    const long = (i: number): string => `'\\ü${String(i).padStart(6, '0')}`.repeat(300);
    const lines = Array.from({ length: 300 }, (_, i) => ['2026-11-30', long(i), crypto.randomUUID()]);
    const slices = lookupSlicesByText(lines, (line) => line);
    expect(slices.length).toBeGreaterThanOrEqual(10); // about 6.7 KB of estimate a line: 29 lines a slice
    expect(slices.flat()).toEqual(lines);
    for (const slice of slices) expect(renderedBytes(slice)).toBeLessThanOrEqual(LOOKUP_TEXT_BYTES);
  });

  it('counts a string repeated within one set once, and the same string in two sets twice', () => {
    const budget = 2 * (2 * 3 + 12);
    expect(
      lookupSlicesByText(
        [
          ['abc', 'abc'],
          ['abc', 'abc'],
          ['abc', 'abc'],
        ],
        (line) => line,
        budget,
      ),
    ).toHaveLength(1);
    expect(
      lookupSlicesByText(
        [
          ['abc', 'abc'],
          ['abc', 'abd'],
        ],
        (line) => line,
        budget,
      ),
    ).toHaveLength(2);
  });

  it('gives a value over the budget a slice of its own, and no slice for no values', () => {
    const huge = 'x'.repeat(LOOKUP_TEXT_BYTES);
    expect(lookupSlicesByText([['a'], [huge], ['b']], (line) => line)).toEqual([[['a']], [[huge]], [['b']]]);
    expect(lookupSlicesByText([], () => [])).toEqual([]);
  });
});
