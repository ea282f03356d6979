/**
 * Which entry is in force (schemas/billing/price-standing.ts), by billing's own rule (findPrice):
 * standings for listing and the shadowing check a price command runs before setting an entry.
 */
import { describe, expect, it } from 'vitest';
import { priceStandings, shadowingEntry, type PriceBookEntry } from '../../../schemas/billing/price-standing.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const entry = (priceId: string, effectiveFrom: string, channel?: string): PriceBookEntry => ({
  priceId,
  model: 'm',
  inputPerMTok: 1,
  outputPerMTok: 2,
  effectiveFrom,
  ...(channel ? { channel } : {}),
});

describe('priceStandings', () => {
  it('marks the latest started general entry and each channel’s own in force, future ones scheduled, the rest superseded', () => {
    const book = [
      entry('config-2020', '2020-01-01T00:00:00Z'),
      entry('cli-now', '2026-06-01T00:00:00Z'),
      entry('ch', '2021-01-01T00:00:00Z', 'c1'),
      entry('next-year', '2027-01-01T00:00:00Z'),
    ];
    expect(Object.fromEntries(priceStandings(book, NOW))).toEqual({
      'config-2020': 'superseded',
      'cli-now': 'in force',
      ch: 'in force',
      'next-year': 'scheduled',
    });
  });

  it('breaks a tie of equal start times in favour of the entry set last (the order given)', () => {
    expect(
      Object.fromEntries(priceStandings([entry('a', '2020-01-01T00:00:00Z'), entry('b', '2020-01-01T00:00:00Z')], NOW)),
    ).toEqual({ a: 'superseded', b: 'in force' });
  });
});

describe('shadowingEntry', () => {
  it('lets an undated price (from now) win over every dated general entry, the config file’s included', () => {
    expect(
      shadowingEntry(
        [entry('config-2020', '2020-01-01T00:00:00Z'), entry('y', '2026-05-31T00:00:00Z')],
        entry('new', '2026-06-01T00:00:00Z'),
        NOW,
      ),
    ).toBeUndefined();
  });

  it('names a channel’s own entry that wins over a general one on that channel', () => {
    expect(
      shadowingEntry([entry('ch', '2021-01-01T00:00:00Z', 'c1')], entry('new', '2026-06-01T00:00:00Z'), NOW),
    ).toEqual({ winner: expect.objectContaining({ priceId: 'ch' }), forChannel: 'c1' });
  });

  it('names a later-starting entry that wins over a back-dated one', () => {
    expect(shadowingEntry([entry('cli', '2026-05-01T00:00:00Z')], entry('back', '2025-01-01T00:00:00Z'), NOW)).toEqual({
      winner: expect.objectContaining({ priceId: 'cli' }),
      forChannel: null,
    });
  });

  it('checks a future entry at its own start, and ignores the entry it replaces (same priceId)', () => {
    expect(
      shadowingEntry([entry('ch', '2026-12-01T00:00:00Z', 'c1')], entry('future', '2027-01-01T00:00:00Z'), NOW),
    ).toEqual({ winner: expect.objectContaining({ priceId: 'ch' }), forChannel: 'c1' });
    expect(
      shadowingEntry([entry('ch', '2027-02-01T00:00:00Z', 'c1')], entry('future', '2027-01-01T00:00:00Z'), NOW),
    ).toBeUndefined();
    expect(
      shadowingEntry([entry('same', '2026-05-01T00:00:00Z')], entry('same', '2025-01-01T00:00:00Z'), NOW),
    ).toBeUndefined();
  });

  it('never lets a general entry shadow a channel’s own', () => {
    expect(
      shadowingEntry([entry('general', '2026-05-31T00:00:00Z')], entry('ch', '2020-01-01T00:00:00Z', 'c1'), NOW),
    ).toBeUndefined();
  });
});
