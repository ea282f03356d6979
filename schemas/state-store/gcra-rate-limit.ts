/**
 * The GCRA arithmetic shared by both rate limiters (memory-rate-limiter.ts runs it directly;
 * redis-rate-limit-scripts.ts mirrors it line by line in Lua — keep the two in step).
 *
 * One cell = one (scope, kind) with `limit` units per BURST_WINDOW_MS (60 000 ms). Emission
 * interval T = 60 000 / limit ms per unit. The cell's state is its theoretical arrival time (TAT);
 * admitting `cost` units: tat' = max(tat, now) + cost·T, allowed iff tat' − now ≤ 60 000.
 *
 * Exactness: T is fractional for most limits (60 000 / 7 …), and doubles near 1.7e12 ms cannot
 * hold fractions of it, so the TAT is kept as an exact rational: `ms + r / limit` with integers
 * `ms` (ms since epoch) and 0 ≤ r < limit, i.e. a unit charge adds exactly 60 000 to the numerator.
 * Every quantity stays an integer far below 2^53, so JavaScript and Redis Lua (both IEEE doubles)
 * compute bit-identical results. Serialised as `"<ms>:<r>:<limit>"`; a state written under
 * another limit is converted by rounding its TAT up to the next whole ms.
 */
import type { Admission, LimitScope, LimitState } from './rate-limiter.ts';

/** The burst window (and the period `limit` refers to), ms. */
export const BURST_WINDOW_MS = 60_000;

/** Which limit of a scope: requests per minute or tokens per minute. */
export type LimitKind = 'requests' | 'tokens';

/** One (scope, kind) charged by an admission: `cost` units against `limit` units per minute. */
export interface GcraCell {
  readonly scope: string;
  readonly kind: LimitKind;
  /** Units per minute (non-negative integer; 0 admits nothing). */
  readonly limit: number;
  /** Units this admission charges (1 for requests, the estimated tokens for tokens). */
  readonly cost: number;
}

/** A TAT as an exact rational: `ms + r / limit` ms since epoch. */
export interface GcraTat {
  readonly ms: number;
  /** 0 ≤ r < limit, in 1/limit ms. */
  readonly r: number;
}

/** The refusal of a cell, as put in `Admission.refusedBy`; `neverAdmissible` when cost > limit (or limit is 0). */
export interface GcraRefusal {
  readonly scope: string;
  readonly kind: LimitKind;
  readonly neverAdmissible: boolean;
}

/** The result of `decideAdmission`: the Admission and each cell's TAT after it (charged only when allowed). */
export interface GcraDecision {
  readonly admission: Admission;
  readonly tats: ReadonlyArray<GcraTat>;
}

/**
 * Largest limit or token count accepted (1e9): keeps every numerator (units · 60 000, ms ahead ·
 * limit) an exact integer in a double.
 */
export const MAX_LIMIT_UNITS = 1_000_000_000;

/** @throws RangeError, naming `what` (of `scope` when given), unless `value` is an integer in [0, MAX_LIMIT_UNITS]. */
export function assertLimitUnits(value: number, what: string, scope?: string): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_LIMIT_UNITS)
    throw new RangeError(
      `${scope === undefined ? what : `${what} of ${scope}`} must be an integer in [0, ${MAX_LIMIT_UNITS}], got ${value}`,
    );
}

/**
 * The cells of one admission of `tokens` estimated tokens: per scope, `requests` (cost 1) when
 * rpm is set, then `tokens` (cost `tokens`) when tpm is set; null limits are not checked.
 * @throws RangeError on a negative/non-integer token count or limit.
 */
export function admissionCells(scopes: ReadonlyArray<LimitScope>, tokens: number): GcraCell[] {
  assertLimitUnits(tokens, 'tokens');
  const cells: GcraCell[] = [];
  for (const scope of scopes) {
    if (scope.rpm !== null) {
      assertLimitUnits(scope.rpm, 'rpm', scope.scope);
      cells.push({ scope: scope.scope, kind: 'requests', limit: scope.rpm, cost: 1 });
    }
    if (scope.tpm !== null) {
      assertLimitUnits(scope.tpm, 'tpm', scope.scope);
      cells.push({ scope: scope.scope, kind: 'tokens', limit: scope.tpm, cost: tokens });
    }
  }
  return cells;
}

/** Parses a stored `"<ms>:<r>:<limit>"` for a cell now limited to `limit`; null when absent or malformed. */
export function parseTat(text: string | null | undefined, limit: number): GcraTat | null {
  const match = text ? /^(-?\d+):(\d+):(\d+)$/.exec(text) : null;
  if (!match) return null;
  return tatUnderLimit({ ms: Number(match[1]), r: Number(match[2]) }, Number(match[3]), limit);
}

/**
 * A TAT stored under `storedLimit` for a cell now limited to `limit`: unchanged when the limit is
 * the same, else rounded up to whole ms (its remainder is in units of the old limit).
 */
export function tatUnderLimit(tat: GcraTat, storedLimit: number, limit: number): GcraTat {
  if (storedLimit === limit) return { ms: tat.ms, r: tat.r };
  return { ms: tat.r > 0 ? tat.ms + 1 : tat.ms, r: 0 };
}

/** Serialises a TAT for a cell limited to `limit` (the inverse of parseTat). */
export function formatTat(tat: GcraTat, limit: number): string {
  return `${tat.ms}:${tat.r}:${limit}`;
}

/** `tat + units·T` for a cell of `limit` (> 0); `units` may be negative. Exact integer arithmetic. */
export function addUnits(tat: GcraTat, units: number, limit: number): GcraTat {
  const total = tat.r + units * BURST_WINDOW_MS;
  const carry = Math.floor(total / limit);
  return { ms: tat.ms + carry, r: total - carry * limit };
}

/** max(tat, now): the point a charge starts from (an absent state is `now`). */
export function chargeBase(tat: GcraTat | null, now: number): GcraTat {
  return tat !== null && tat.ms >= now ? tat : { ms: now, r: 0 };
}

/** (tat − now) in 1/limit ms (negative when the TAT is past). */
function aheadUnits(tat: GcraTat, now: number, limit: number): number {
  return (tat.ms - now) * limit + tat.r;
}

/** The `x-ratelimit-*` view of a cell whose TAT is `tat`: remaining units (≥ 0) and ms to full replenishment. */
export function limitStateOf(cell: GcraCell, tat: GcraTat, now: number): LimitState {
  if (cell.limit === 0) return { scope: cell.scope, kind: cell.kind, limit: 0, remaining: 0, resetMs: 0 };
  const ahead = Math.max(0, aheadUnits(tat, now, cell.limit));
  const remaining = Math.max(0, Math.floor((BURST_WINDOW_MS * cell.limit - ahead) / BURST_WINDOW_MS));
  return { scope: cell.scope, kind: cell.kind, limit: cell.limit, remaining, resetMs: Math.ceil(ahead / cell.limit) };
}

/**
 * Decides one admission over all `cells` at once, given each cell's stored TAT (null = none) and
 * `now` (integer ms). Allowed iff every cell admits its cost; then every cell is charged,
 * otherwise none. Refused: `retryAfterMs` = max over refusing cells of ceil(tat' − now − 60 000)
 * (60 000 for a cell that can never admit: cost > limit or limit 0), `refusedBy` = the
 * never-admissible cell if any, else the first refusing one. `states` are after the decision.
 */
export function decideAdmission(
  cells: ReadonlyArray<GcraCell>,
  stored: ReadonlyArray<GcraTat | null>,
  now: number,
): GcraDecision {
  const bases = cells.map((cell, i) => chargeBase(stored[i] ?? null, now));
  const charged: GcraTat[] = [];
  let retryAfterMs = 0;
  let refusedBy: GcraRefusal | undefined;
  cells.forEach((cell, i) => {
    const base = bases[i] as GcraTat;
    if (cell.limit === 0 || cell.cost > cell.limit) {
      charged.push(base);
      retryAfterMs = Math.max(retryAfterMs, BURST_WINDOW_MS);
      if (!refusedBy?.neverAdmissible) refusedBy = { scope: cell.scope, kind: cell.kind, neverAdmissible: true };
      return;
    }
    const next = addUnits(base, cell.cost, cell.limit);
    charged.push(next);
    const excess = aheadUnits(next, now, cell.limit) - BURST_WINDOW_MS * cell.limit;
    if (excess <= 0) return;
    retryAfterMs = Math.max(retryAfterMs, Math.ceil(excess / cell.limit));
    refusedBy ??= { scope: cell.scope, kind: cell.kind, neverAdmissible: false };
  });
  const allowed = refusedBy === undefined;
  const tats = allowed ? charged : bases;
  const states = cells.map((cell, i) => limitStateOf(cell, tats[i] as GcraTat, now));
  const admission: Admission = allowed
    ? { allowed, retryAfterMs: 0, states }
    : { allowed, retryAfterMs, refusedBy, states };
  return { admission, tats };
}

/**
 * The TAT after settling a reservation of a tokens cell by `deltaTokens` (actual − reserved):
 * a positive delta charges like an admission (from max(tat, now), unchecked: usage beyond the
 * reservation becomes debt the next admissions wait for); a negative one releases from the TAT
 * but never below `now` — a release cannot bank more than a full burst.
 */
export function settledTat(stored: GcraTat | null, deltaTokens: number, limit: number, now: number): GcraTat {
  if (limit === 0 || deltaTokens === 0) return stored ?? { ms: now, r: 0 };
  if (deltaTokens > 0) return addUnits(chargeBase(stored, now), deltaTokens, limit);
  const released = addUnits(stored ?? { ms: now, r: 0 }, deltaTokens, limit);
  return released.ms >= now ? released : { ms: now, r: 0 };
}

/** TTL of a stored cell, ms: until its TAT has passed (rounded up), plus one burst window (~2 minutes at most without debt). */
export function tatTtlMs(tat: GcraTat, now: number): number {
  return Math.max(0, tat.ms - now + 1) + BURST_WINDOW_MS;
}

/** True when `admission` was refused by a cell that can never admit the request (cost over the whole burst). */
export function isNeverAdmissible(admission: Admission): boolean {
  const refusal = admission.refusedBy as Partial<GcraRefusal> | undefined;
  return refusal?.neverAdmissible === true;
}

/** The part of an admission decided on one Redis Cluster slot: which cells, their stored TATs, and that node's clock. */
export interface GcraCellGroup {
  /** Indexes into the admission's cells, ascending. */
  readonly indexes: ReadonlyArray<number>;
  /** Stored TAT of each of those cells (null = none), in the same order. */
  readonly stored: ReadonlyArray<GcraTat | null>;
  /** The clock (ms) the group was decided at. */
  readonly now: number;
}

/**
 * decideAdmission for cells decided in groups (one per cluster slot, each against its node's clock,
 * groups ordered by their first cell): allowed iff every group admits; `states` in cell order,
 * uncharged in every group when refused; `retryAfterMs` the longest wait of the refusing groups;
 * `refusedBy` the first never-admissible refusal, else the first refusal. `groupAllowed` says which
 * groups admitted on their own (their charge is to be released when the whole is refused).
 */
export function decideGroupedAdmission(
  cells: ReadonlyArray<GcraCell>,
  groups: ReadonlyArray<GcraCellGroup>,
): { admission: Admission; groupAllowed: boolean[] } {
  const decisions = groups.map((group) =>
    decideAdmission(
      group.indexes.map((i) => cells[i] as GcraCell),
      group.stored,
      group.now,
    ),
  );
  const groupAllowed = decisions.map((decision) => decision.admission.allowed);
  const allowed = groupAllowed.every(Boolean);
  const states: LimitState[] = new Array<LimitState>(cells.length);
  let retryAfterMs = 0;
  let refusedBy: GcraRefusal | undefined;
  groups.forEach((group, g) => {
    const decision = decisions[g] as GcraDecision;
    group.indexes.forEach((cellIndex, j) => {
      const cell = cells[cellIndex] as GcraCell;
      states[cellIndex] =
        allowed || !decision.admission.allowed
          ? (decision.admission.states[j] as LimitState)
          : limitStateOf(cell, chargeBase(group.stored[j] ?? null, group.now), group.now);
    });
    if (decision.admission.allowed) return;
    retryAfterMs = Math.max(retryAfterMs, decision.admission.retryAfterMs);
    const refusal = decision.admission.refusedBy as GcraRefusal;
    if (!refusedBy || (refusal.neverAdmissible && !refusedBy.neverAdmissible)) refusedBy = refusal;
  });
  const admission: Admission = allowed
    ? { allowed, retryAfterMs: 0, states }
    : { allowed, retryAfterMs, refusedBy: refusedBy, states };
  return { admission, groupAllowed };
}
