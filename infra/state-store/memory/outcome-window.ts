/**
 * The in-memory sliding window of one channel's outcomes (the memory adapter's counterpart of the
 * Redis sorted sets): entries kept sorted by `at` (ms since epoch); trimmed on write to
 * `at > observationAt - windowMs`, counted on read as `at > now - windowMs` — the same bounds as
 * the Redis script's ZREMRANGEBYSCORE / ZCOUNT.
 */
import type { WindowCounts } from '../../../schemas/state-store/fold-channel-health.ts';

interface Outcome {
  readonly at: number;
  readonly failed: boolean;
}

/** A sorted list of outcomes; appends in time order cost O(1), late ones a binary insert. */
export class OutcomeWindow {
  private readonly entries: Outcome[] = [];

  /** A window holding `outcomes` ([at ms, failed] pairs, as `toPairs` returns them; sorted here). */
  static fromPairs(outcomes: ReadonlyArray<readonly [number, boolean]>): OutcomeWindow {
    const window = new OutcomeWindow();
    for (const [at, failed] of outcomes) window.entries.push({ at, failed });
    window.entries.sort((a, b) => a.at - b.at);
    return window;
  }

  /** The outcomes held, oldest first, as [at ms, failed] pairs (for a snapshot). */
  toPairs(): Array<[number, boolean]> {
    return this.entries.map(({ at, failed }) => [at, failed]);
  }

  /** Records one outcome at `at` (ms), then drops entries with `at <= at - windowMs`. */
  add(at: number, failed: boolean, windowMs: number): void {
    this.entries.splice(this.upperBound(at), 0, { at, failed });
    const drop = this.upperBound(at - windowMs);
    if (drop > 0) this.entries.splice(0, drop);
  }

  /** Observations and failures with `at > now - windowMs`. */
  countSince(now: number, windowMs: number): WindowCounts {
    let failures = 0;
    let count = 0;
    for (let i = this.upperBound(now - windowMs); i < this.entries.length; i++) {
      count++;
      if ((this.entries[i] as Outcome).failed) failures++;
    }
    return { count, failures };
  }

  /** Index of the first entry with `entry.at > at`. */
  private upperBound(at: number): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.entries[mid] as Outcome).at <= at) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
