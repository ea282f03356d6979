/**
 * Which price-book entry is in force, by the rule billing uses (findPrice): for a model and a
 * channel, among entries with effectiveFrom ≤ the time, a channel's own entry beats a general one,
 * then the latest effectiveFrom wins, then the entry set last. Pure: the admin API, the console and
 * the CLI list entries with their standing, and a price command refuses an entry that would not be
 * in force (another entry shadows it).
 */
import { buildPriceBook, findPrice, type Price, type PriceEntryConfig } from './price-book.ts';

/**
 * An entry's standing at a time: `in force` (billing picks it for its model and channel — a
 * general entry for channels without their own), `scheduled` (effectiveFrom still in the future)
 * or `superseded` (another entry wins).
 */
export type PriceStanding = 'in force' | 'scheduled' | 'superseded';

/** A price-book entry with its id, in the config file's shape (USD per million tokens). */
export type PriceBookEntry = PriceEntryConfig & { readonly priceId: string };

/** An entry and its price (nano-USD), paired so that findPrice's answer maps back to the entry. */
interface PricedEntry {
  readonly entry: PriceBookEntry;
  readonly price: Price;
}

/** Another entry that wins over a candidate: `forChannel` is the channel it wins on (null: every channel without its own entry). */
export interface Shadowing {
  readonly winner: PriceBookEntry;
  readonly forChannel: string | null;
}

/**
 * The standing of every entry at `at` (ms since epoch).
 * @param entries the book, latest entry per priceId, in the order they were last set (the fold's
 *   `prices()`): findPrice breaks ties in favour of the later one.
 * @returns standing by priceId
 */
export function priceStandings(entries: ReadonlyArray<PriceBookEntry>, at: number): Map<string, PriceStanding> {
  const priced = pair(entries);
  const book = priced.map((p) => p.price);
  const standings = new Map<string, PriceStanding>();
  for (const { entry, price } of priced) {
    if (price.effectiveFrom > at) standings.set(entry.priceId, 'scheduled');
    else
      standings.set(
        entry.priceId,
        findPrice(book, price.model, price.channel, at) === price ? 'in force' : 'superseded',
      );
  }
  return standings;
}

/**
 * What would win over `candidate` if it were set now (replacing any entry with its priceId, and
 * set last): checked at `now`, or at the candidate's effectiveFrom when that is later. A general
 * candidate is checked for every channel of its model with an entry of its own, and for the rest.
 * @param entries as for priceStandings
 * @returns the first winning rival, or undefined when the candidate would be in force
 */
export function shadowingEntry(
  entries: ReadonlyArray<PriceBookEntry>,
  candidate: PriceBookEntry,
  now: number,
): Shadowing | undefined {
  const priced = pair([...entries.filter((e) => e.priceId !== candidate.priceId), candidate]);
  const mine = priced.at(-1)!.price;
  const book = priced.map((p) => p.price);
  const at = Math.max(now, mine.effectiveFrom);
  const channels =
    mine.channel !== null
      ? [mine.channel]
      : [
          null,
          ...new Set(
            priced.flatMap((p) => (p.price.model === mine.model && p.price.channel !== null ? [p.price.channel] : [])),
          ),
        ];
  for (const channel of channels) {
    const winner = findPrice(book, mine.model, channel, at);
    if (winner !== undefined && winner !== mine)
      return { winner: priced.find((p) => p.price === winner)!.entry, forChannel: channel };
  }
  return undefined;
}

function pair(entries: ReadonlyArray<PriceBookEntry>): PricedEntry[] {
  const prices = buildPriceBook(entries);
  return entries.map((entry, i) => ({ entry, price: prices[i]! }));
}
