/**
 * The in-process rate limiter (embedded mode, no REDIS_URL): the same GCRA arithmetic as the
 * Redis adapter (gcra-rate-limit.ts), cell by cell with identical results. A JavaScript call runs
 * to completion before another starts, so an admission is atomic over all its cells. Cells whose
 * TAT has passed are equivalent to absent ones and are dropped now and then.
 */
import {
  admissionCells,
  assertLimitUnits,
  decideAdmission,
  settledTat,
  tatUnderLimit,
  type GcraTat,
} from '../../../schemas/state-store/gcra-rate-limit.ts';
import type { Admission, LimitScope, RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';

/** Options of the memory limiter; `clock` returns ms since epoch (default Date.now). */
export interface MemoryRateLimiterOptions {
  readonly clock?: () => number;
}

/** A cell's TAT and the limit it was computed under. */
interface StoredTat extends GcraTat {
  readonly limit: number;
}

/** Admissions between two sweeps of passed cells. */
const SWEEP_EVERY = 1024;

/**
 * A RateLimiter in process memory (contract: rate-limiter.ts). Never rejects for I/O reasons.
 * @throws RangeError (from admit/settle) on a negative, non-integer or > 1e9 limit or token count.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  const clock = options.clock ?? Date.now;
  // What the Redis adapter stores as "<ms>:<r>:<limit>", kept as numbers (no text to parse per
  // request), by scope then kind (no key string to build and hash per cell and call).
  const cells = new Map<string, Map<string, StoredTat>>();
  let admissions = 0;
  const tatAt = (scope: string, kind: string, limit: number): GcraTat | null => {
    const stored = cells.get(scope)?.get(kind);
    return stored ? tatUnderLimit(stored, stored.limit, limit) : null;
  };
  const store = (scope: string, kind: string, tat: StoredTat): void => {
    const kinds = cells.get(scope);
    if (kinds) kinds.set(kind, tat);
    else cells.set(scope, new Map([[kind, tat]]));
  };
  const sweep = (now: number): void => {
    // A TAT `ms + r/limit` with ms < now has passed (r/limit < 1).
    for (const [scope, kinds] of cells) {
      for (const [kind, stored] of kinds) if (!(stored.ms >= now)) kinds.delete(kind);
      if (kinds.size === 0) cells.delete(scope);
    }
  };

  return {
    async admit(scopes: ReadonlyArray<LimitScope>, tokens: number, now?: number): Promise<Admission> {
      const list = admissionCells(scopes, tokens);
      const at = Math.floor(now ?? clock());
      if (++admissions % SWEEP_EVERY === 0) sweep(at);
      const decision = decideAdmission(
        list,
        list.map((cell) => tatAt(cell.scope, cell.kind, cell.limit)),
        at,
      );
      if (decision.admission.allowed) {
        list.forEach((cell, i) => {
          const tat = decision.tats[i] as GcraTat;
          store(cell.scope, cell.kind, { ms: tat.ms, r: tat.r, limit: cell.limit });
        });
      }
      return decision.admission;
    },

    async settle(scopes: ReadonlyArray<LimitScope>, reserved: number, actual: number, now?: number): Promise<void> {
      assertLimitUnits(reserved, 'reserved tokens');
      assertLimitUnits(actual, 'actual tokens');
      if (actual === reserved) return;
      const at = Math.floor(now ?? clock());
      for (const cell of admissionCells(scopes, 0)) {
        if (cell.kind !== 'tokens' || cell.limit === 0) continue;
        const tat = settledTat(tatAt(cell.scope, cell.kind, cell.limit), actual - reserved, cell.limit, at);
        store(cell.scope, cell.kind, { ms: tat.ms, r: tat.r, limit: cell.limit });
      }
    },

    async close(): Promise<void> {
      cells.clear();
    },
  };
}
