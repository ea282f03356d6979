/**
 * The price book through time, as the control-plane fold sees the config topic: every PriceSet in
 * log order, numbered from 1 (its price revision). A traffic event carries the revision its
 * gateway node had applied when it built the event (`priceRevision`); billing prices it with the
 * book as of that revision, at the event's `occurredAt` (findPrice). So the bill depends only on
 * what the topics hold: a replay gives the same cost whenever it runs, and a price set after a
 * request never re-prices it, even with an earlier `effectiveFrom`.
 */
import type { PriceSet } from './control-plane-events.ts';
import { priceRecordOf } from './control-plane-records.ts';
import { buildPriceBook, type Price } from '../billing/price-book.ts';

/** One applied PriceSet. */
interface PriceHistoryEntry {
  readonly revision: number;
  readonly priceId: string;
  /** When the price was set, ms since epoch. */
  readonly setAt: number;
  readonly price: Price;
}

/** Books kept per revision (the newest few serve nearly every lookup). */
const CACHED_BOOKS = 64;

/** Every PriceSet applied, in order (see the module doc). */
export class PriceHistory {
  private readonly entries: PriceHistoryEntry[] = [];
  private readonly books = new Map<number, ReadonlyArray<Price>>();

  /** Price revision: the number of PriceSet events recorded. */
  get revision(): number {
    return this.entries.length;
  }

  /**
   * Appends one applied PriceSet (the caller skips duplicates by event id). A PriceSet whose
   * amounts cannot be priced exactly (not finite, negative; the commands never write one) is not
   * recorded and does not count as a revision — every process runs this same code, so they agree.
   * @returns whether it was recorded
   */
  record(event: PriceSet): boolean {
    let price: Price | undefined;
    try {
      [price] = buildPriceBook([priceRecordOf(event)]);
    } catch {
      return false;
    }
    if (
      !price ||
      price.inputNanoPerMTok < 0n ||
      price.outputNanoPerMTok < 0n ||
      price.cacheReadNanoPerMTok < 0n ||
      price.cacheWriteNanoPerMTok < 0n ||
      price.cacheWrite1hNanoPerMTok < 0n ||
      Number.isNaN(price.effectiveFrom)
    )
      return false;
    this.entries.push({ revision: this.entries.length + 1, priceId: event.priceId, setAt: event.occurredAt, price });
    return true;
  }

  /**
   * The price book as of `revision`: for each price id, its latest PriceSet among the first
   * `revision` (revisions past the last recorded one read as the last one). With `revision`
   * null (events written before revisions were stamped), the PriceSets set at or before `at`
   * (ms since epoch) count instead.
   */
  bookAt(revision: number | null, at: number): ReadonlyArray<Price> {
    if (revision === null) return latestPerId(this.entries.filter((entry) => entry.setAt <= at));
    const upTo = Math.max(0, Math.min(revision, this.entries.length));
    let book = this.books.get(upTo);
    if (!book) {
      book = latestPerId(this.entries.slice(0, upTo));
      if (this.books.size >= CACHED_BOOKS) this.books.delete(this.books.keys().next().value as number);
      this.books.set(upTo, book);
    }
    return book;
  }
}

/** The latest entry per price id, as prices, in the order they were last set (findPrice prefers the later of equals). */
function latestPerId(entries: ReadonlyArray<PriceHistoryEntry>): Price[] {
  const byId = new Map<string, Price>();
  for (const entry of entries) {
    byId.delete(entry.priceId);
    byId.set(entry.priceId, entry.price);
  }
  return [...byId.values()];
}
