/**
 * The price book through time (schemas/control-plane/price-history.ts) as the control-plane fold keeps
 * it: a request is priced with the PriceSets its gateway node had applied (its revision), at its
 * time; later prices never re-price it; old events without a revision use the prices set by then.
 */
import { describe, expect, it } from 'vitest';
import { findPrice } from '../../../schemas/billing/price-book.ts';
import { ControlPlaneFold } from '../../../schemas/control-plane/control-plane-fold.ts';
import type { ControlEvent, PriceSet } from '../../../schemas/control-plane/control-plane-events.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

let seq = 0;
function priceSet(overrides: Partial<PriceSet>): ControlEvent {
  seq += 1;
  return {
    type: 'PriceSet',
    event: {
      eventId: `p-${seq}`,
      occurredAt: T0,
      actor: 'cli',
      priceId: `m|*|${seq}`,
      model: 'm',
      channel: null,
      inputPerMTok: 1,
      outputPerMTok: 2,
      cacheReadPerMTok: null,
      cacheWritePerMTok: null,
      effectiveFrom: 0,
      ...overrides,
    },
  };
}

const fold = () =>
  new ControlPlaneFold<string>({
    projectChannel: (event) => ({ record: event.channelId, warning: undefined, hasCredential: false }),
  });
const inputNano = (
  book: ReturnType<ControlPlaneFold<string>['priceBooks']['bookAt']>,
  at: number,
  channel: string | null = null,
) => findPrice(book, 'm', channel, at)?.inputNanoPerMTok;

describe('price history', () => {
  it('counts PriceSet events (duplicates once) as the price revision', () => {
    const f = fold();
    const first = priceSet({ priceId: 'a' });
    f.applyBatch([first, first, priceSet({ priceId: 'b', inputPerMTok: 5 })]);
    expect(f.priceRevision).toBe(2);
  });

  it('prices as of a revision: a later PriceSet, even with an earlier effectiveFrom, does not re-price', () => {
    const f = fold();
    f.applyBatch([priceSet({ priceId: 'm|*|base', inputPerMTok: 1, effectiveFrom: T0 - 10 * HOUR })]);
    const revisionOfRequest = f.priceRevision;
    f.applyBatch([
      priceSet({ priceId: 'm|*|retro', inputPerMTok: 9, effectiveFrom: T0 - 5 * HOUR, occurredAt: T0 + HOUR }),
    ]);
    expect(inputNano(f.priceBooks.bookAt(revisionOfRequest, T0), T0)).toBe(1_000_000_000n);
    expect(inputNano(f.priceBooks.bookAt(f.priceRevision, T0), T0)).toBe(9_000_000_000n);
    // a revision past what is known reads as everything known
    expect(inputNano(f.priceBooks.bookAt(99, T0), T0)).toBe(9_000_000_000n);
    expect(inputNano(f.priceBooks.bookAt(0, T0), T0)).toBeUndefined();
  });

  it('replaces a price id within the revision, and keeps effectiveFrom and channel rules', () => {
    const f = fold();
    f.applyBatch([
      priceSet({ priceId: 'same', inputPerMTok: 1 }),
      priceSet({ priceId: 'same', inputPerMTok: 3 }),
      priceSet({ priceId: 'future', inputPerMTok: 7, effectiveFrom: T0 + 10 * HOUR }),
      priceSet({ priceId: 'ch', channel: 'ch-1', inputPerMTok: 4 }),
    ]);
    const book = f.priceBooks.bookAt(f.priceRevision, T0);
    expect(inputNano(book, T0)).toBe(3_000_000_000n);
    expect(inputNano(book, T0 + 11 * HOUR)).toBe(7_000_000_000n);
    expect(inputNano(book, T0, 'ch-1')).toBe(4_000_000_000n);
    expect(inputNano(f.priceBooks.bookAt(1, T0), T0)).toBe(1_000_000_000n);
  });

  it('prefers, among prices with the same effectiveFrom, the one set last (a CLI price over the config file one)', () => {
    const f = fold();
    f.applyBatch([priceSet({ priceId: 'config:m', inputPerMTok: 1 }), priceSet({ priceId: 'cli:m', inputPerMTok: 5 })]);
    expect(inputNano(f.priceBooks.bookAt(f.priceRevision, T0), T0)).toBe(5_000_000_000n);
    f.applyBatch([priceSet({ priceId: 'config:m', inputPerMTok: 2 })]);
    expect(inputNano(f.priceBooks.bookAt(f.priceRevision, T0), T0)).toBe(2_000_000_000n);
  });

  it('without a revision (events older than revisions), uses the prices set at or before the event', () => {
    const f = fold();
    f.applyBatch([
      priceSet({ priceId: 'early', inputPerMTok: 1, occurredAt: T0 }),
      priceSet({ priceId: 'late', inputPerMTok: 2, effectiveFrom: T0, occurredAt: T0 + 2 * HOUR }),
    ]);
    expect(inputNano(f.priceBooks.bookAt(null, T0 + HOUR), T0 + HOUR)).toBe(1_000_000_000n);
    expect(inputNano(f.priceBooks.bookAt(null, T0 + 3 * HOUR), T0 + 3 * HOUR)).toBe(2_000_000_000n);
  });

  it('ignores, with a warning, a PriceSet that cannot be priced exactly, in every process alike', () => {
    const f = fold();
    f.applyBatch([
      priceSet({ priceId: 'nan', inputPerMTok: Number.NaN }),
      priceSet({ priceId: 'neg', outputPerMTok: -1 }),
      priceSet({ priceId: 'ok' }),
    ]);
    expect(f.priceRevision).toBe(1);
    expect(f.prices().map((p) => p.priceId)).toEqual(['ok']);
    expect(f.warnings()).toHaveLength(2);
  });
});
