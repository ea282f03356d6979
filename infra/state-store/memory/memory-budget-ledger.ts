/**
 * The in-process budget ledger (embedded mode, no REDIS_URL): the same semantics as the Redis
 * adapter (schemas/state-store/budget-ledger.ts), with the same input checks and 64-bit ranges
 * (infra/state-store/budget-ledger-input.ts). A JavaScript call runs to completion before another
 * starts, so a reservation over several counters is atomic (all claims held or none).
 *
 * Per counter (`<budgetId>@<windowStartMs>`) it keeps: spent nano-USD (bigint) and tokens, a
 * watermark per partition (`<topic>:<partition>` → the highest offset added, compared as numbers
 * with offsetOf), the holds per request id `{nanoUsd, tokens, holdUntilMs}` with their running
 * sums, and the alerted threshold percents. Memory stays bounded: a hold is dropped once its
 * `holdUntilMs` has passed (`nowMs` ≥ holdUntilMs, checked when the counter is next used, and by a
 * sweep over every counter every SWEEP_EVERY calls), and a counter is forgotten 35 days after its
 * window's end (BUDGET_COUNTER_RETENTION_MS), as the Redis keys expire.
 *
 * Holds are not part of exportContent (a snapshot): they live seconds to minutes, and a restarted
 * process has no request in flight.
 */
import { offsetOf } from '../../../schemas/state-store/applied-watermark.ts';
import type {
  BudgetClaim,
  BudgetCounter,
  BudgetLedger,
  BudgetReservation,
  BudgetSpendIncrement,
  BudgetWindowUse,
} from '../../../schemas/state-store/budget-ledger.ts';
import {
  assertBudgetCounter,
  assertBudgetSpendBatch,
  assertPercent,
  assertReserve,
  assertSettle,
  budgetCounterExpiry,
  budgetCounterKey,
  MAX_BUDGET_NANO_USD,
  MAX_BUDGET_TOKENS,
} from '../budget-ledger-input.ts';

/** One request's hold in one counter. */
interface Hold {
  readonly nanoUsd: bigint;
  readonly tokens: number;
  /** ms since epoch; the hold is dropped once nowMs ≥ holdUntilMs */
  readonly holdUntilMs: number;
}

/** One counter as held in memory. */
interface CounterState {
  /** The window as first written. */
  readonly counter: BudgetCounter;
  /** ms since epoch, or null (lifetime): when the counter is forgotten (window end + 35 days). */
  readonly expiresAtMs: number | null;
  spentNanoUsd: bigint;
  spentTokens: number;
  /** `<topic>:<partition>` → highest offset added to this counter */
  readonly watermarks: Map<string, number>;
  readonly holds: Map<string, Hold>;
  heldNanoUsd: bigint;
  heldTokens: number;
  /** Earliest holdUntilMs among `holds` (Infinity when none): holds are scanned only once it has passed. */
  nextExpiryMs: number;
  readonly alertedPercents: Set<number>;
}

/** One counter's durable part, as a snapshot of the embedded state holds it. */
export interface MemoryBudgetCounterContent {
  readonly counter: BudgetCounter;
  readonly spentNanoUsd: bigint;
  readonly spentTokens: number;
  /** `<topic>:<partition>` → highest offset added to this counter */
  readonly watermarks: ReadonlyArray<readonly [string, number]>;
  readonly alertedPercents: ReadonlyArray<number>;
}

/** Everything durable the memory ledger holds (holds excluded, see the module doc). */
export interface MemoryBudgetContent {
  readonly counters: ReadonlyArray<MemoryBudgetCounterContent>;
}

/** The memory BudgetLedger, plus what snapshotting it needs. */
export interface MemoryBudgetLedger extends BudgetLedger {
  /** A copy of the counters (spent, watermarks, alerts), taken synchronously. */
  exportContent(): MemoryBudgetContent;
  /** How many calls changed a counter's spend or alerts since the ledger was created. */
  changeCount(): number;
  /** Nothing to release (the same shape as the Redis adapter's). */
  close(): Promise<void>;
}

/** Calls between two sweeps over every counter (expired holds, forgotten counters). */
const SWEEP_EVERY = 1024;

/** The RangeError of an amount that would leave Redis' signed 64-bit range (or tokens past 2^53 − 1). */
function describeOverflow(what: string): RangeError {
  return new RangeError(`budget ${what} would pass its 64-bit range`);
}

/**
 * Creates an in-process BudgetLedger (contract: budget-ledger.ts): empty, or holding `initial` (a
 * snapshot's content, trusted as given). Never rejects for I/O reasons.
 * @throws RangeError (from its methods) on malformed input, before anything changes
 */
export function createMemoryBudgetLedger(initial?: MemoryBudgetContent): MemoryBudgetLedger {
  const counters = new Map<string, CounterState>();
  for (const content of initial?.counters ?? []) {
    counters.set(budgetCounterKey(content.counter), {
      counter: content.counter,
      expiresAtMs: budgetCounterExpiry(content.counter),
      spentNanoUsd: content.spentNanoUsd,
      spentTokens: content.spentTokens,
      watermarks: new Map(content.watermarks),
      holds: new Map(),
      heldNanoUsd: 0n,
      heldTokens: 0,
      nextExpiryMs: Infinity,
      alertedPercents: new Set(content.alertedPercents),
    });
  }
  let calls = 0;
  let changes = 0;

  /** Drops the holds of `state` that have ended at `nowMs`. */
  const purgeHolds = (state: CounterState, nowMs: number): void => {
    if (nowMs < state.nextExpiryMs) return;
    let next = Infinity;
    for (const [requestId, hold] of state.holds) {
      if (hold.holdUntilMs <= nowMs) {
        state.holds.delete(requestId);
        state.heldNanoUsd -= hold.nanoUsd;
        state.heldTokens -= hold.tokens;
      } else next = Math.min(next, hold.holdUntilMs);
    }
    state.nextExpiryMs = next;
  };

  /** Forgets every counter past its retention and drops every ended hold, every SWEEP_EVERY calls. */
  const maybeSweep = (nowMs: number): void => {
    if (++calls % SWEEP_EVERY !== 0) return;
    for (const [id, state] of counters) {
      if (state.expiresAtMs !== null && state.expiresAtMs <= nowMs) {
        counters.delete(id);
      } else purgeHolds(state, nowMs);
    }
  };

  /** The live state of `counter` at `nowMs` (ended holds dropped), or undefined when none (never written, or forgotten). */
  const existing = (counter: BudgetCounter, nowMs: number | null): CounterState | undefined => {
    const id = budgetCounterKey(counter);
    const state = counters.get(id);
    if (!state) return undefined;
    if (nowMs === null) return state;
    if (state.expiresAtMs !== null && state.expiresAtMs <= nowMs) {
      counters.delete(id);
      return undefined;
    }
    purgeHolds(state, nowMs);
    return state;
  };

  /** The state of `counter`, created empty when absent. */
  const created = (counter: BudgetCounter, nowMs: number | null): CounterState => {
    const found = existing(counter, nowMs);
    if (found) return found;
    const state: CounterState = {
      counter: { budgetId: counter.budgetId, windowStartMs: counter.windowStartMs, windowEndMs: counter.windowEndMs },
      expiresAtMs: budgetCounterExpiry(counter),
      spentNanoUsd: 0n,
      spentTokens: 0,
      watermarks: new Map(),
      holds: new Map(),
      heldNanoUsd: 0n,
      heldTokens: 0,
      nextExpiryMs: Infinity,
      alertedPercents: new Set(),
    };
    counters.set(budgetCounterKey(counter), state);
    return state;
  };

  const useOf = (counter: BudgetCounter, state: CounterState | undefined): BudgetWindowUse => ({
    counter,
    spentNanoUsd: state?.spentNanoUsd ?? 0n,
    spentTokens: state?.spentTokens ?? 0,
    heldNanoUsd: state?.heldNanoUsd ?? 0n,
    heldTokens: state?.heldTokens ?? 0,
    alertedPercents: state ? [...state.alertedPercents].sort((a, b) => a - b) : [],
  });

  /** Sets (or, with `hold` undefined, drops) the request's hold in `state`. */
  const putHold = (state: CounterState, requestId: string, hold: Hold | undefined): void => {
    const old = state.holds.get(requestId);
    if (old) {
      state.heldNanoUsd -= old.nanoUsd;
      state.heldTokens -= old.tokens;
      state.holds.delete(requestId);
    }
    if (!hold) return;
    state.holds.set(requestId, hold);
    state.heldNanoUsd += hold.nanoUsd;
    state.heldTokens += hold.tokens;
    state.nextExpiryMs = Math.min(state.nextExpiryMs, hold.holdUntilMs);
  };

  /** @throws RangeError when replacing the request's hold in `state` by (nanoUsd, tokens) would pass the 64-bit range */
  const assertHoldFits = (
    state: CounterState | undefined,
    requestId: string,
    nanoUsd: bigint,
    tokens: number,
  ): void => {
    const old = state?.holds.get(requestId);
    if ((state?.heldNanoUsd ?? 0n) - (old?.nanoUsd ?? 0n) + nanoUsd > MAX_BUDGET_NANO_USD)
      throw describeOverflow('holds');
    if ((state?.heldTokens ?? 0) - (old?.tokens ?? 0) + tokens > MAX_BUDGET_TOKENS)
      throw describeOverflow('held tokens');
  };

  const atLimit = (claim: BudgetClaim, state: CounterState | undefined): boolean => {
    const use = useOf(claim.counter, state);
    return (
      (claim.limitNanoUsd !== null && use.spentNanoUsd + use.heldNanoUsd >= claim.limitNanoUsd) ||
      (claim.limitTokens !== null && use.spentTokens + use.heldTokens >= claim.limitTokens)
    );
  };

  return {
    async reserve(requestId, claims, holdUntilMs, nowMs): Promise<BudgetReservation> {
      assertReserve(requestId, claims, holdUntilMs, nowMs);
      maybeSweep(nowMs);
      const states = claims.map((claim) => existing(claim.counter, nowMs));
      const refusedBy = claims.findIndex((claim, i) => atLimit(claim, states[i]));
      if (refusedBy >= 0)
        return { ok: false, refusedBy, uses: claims.map((claim, i) => useOf(claim.counter, states[i])) };
      claims.forEach((claim, i) => assertHoldFits(states[i], requestId, claim.reserveNanoUsd, claim.reserveTokens));
      const uses = claims.map((claim) => {
        const state = created(claim.counter, nowMs);
        putHold(state, requestId, { nanoUsd: claim.reserveNanoUsd, tokens: claim.reserveTokens, holdUntilMs });
        return useOf(claim.counter, state);
      });
      return { ok: true, uses };
    },

    async settle(requestId, settled, costNanoUsd, tokens, holdUntilMs, nowMs): Promise<void> {
      assertSettle(requestId, settled, costNanoUsd, tokens, holdUntilMs, nowMs);
      maybeSweep(nowMs);
      const states = settled.map((counter) => existing(counter, nowMs));
      states.forEach((state) => state?.holds.has(requestId) && assertHoldFits(state, requestId, costNanoUsd, tokens));
      for (const state of states)
        if (state?.holds.has(requestId)) putHold(state, requestId, { nanoUsd: costNanoUsd, tokens, holdUntilMs });
    },

    async addBudgetSpendBatch(increments: ReadonlyArray<BudgetSpendIncrement>, nowMs): Promise<BudgetWindowUse[]> {
      assertBudgetSpendBatch(increments);
      if (!Number.isSafeInteger(nowMs)) throw new RangeError(`nowMs must be an integer of ms, got ${String(nowMs)}`);
      if (increments.length === 0) return [];
      maybeSweep(nowMs);
      const first = increments[0] as BudgetSpendIncrement;
      const partition = `${first.position.topic}:${first.position.partition}`;
      // First pass: what each counter would reach (an increment is new iff past the counter's watermark at the start).
      const totals = new Map<string, { nanoUsd: bigint; tokens: number }>();
      for (const increment of increments) {
        const id = budgetCounterKey(increment.counter);
        const state = existing(increment.counter, nowMs);
        let total = totals.get(id);
        if (!total) totals.set(id, (total = { nanoUsd: state?.spentNanoUsd ?? 0n, tokens: state?.spentTokens ?? 0 }));
        const mark = state?.watermarks.get(partition) ?? -1;
        if (offsetOf(increment.position) <= mark) continue;
        total.nanoUsd += increment.costNanoUsd;
        total.tokens += increment.tokens;
        if (total.nanoUsd > MAX_BUDGET_NANO_USD) throw describeOverflow(`counter ${id}`);
        if (total.tokens > MAX_BUDGET_TOKENS) throw describeOverflow(`counter ${id} tokens`);
      }
      const touched = new Map<string, BudgetCounter>();
      for (const increment of increments) {
        const id = budgetCounterKey(increment.counter);
        if (!touched.has(id)) touched.set(id, increment.counter);
        const state = created(increment.counter, nowMs);
        putHold(state, increment.requestId, undefined);
        const offset = offsetOf(increment.position);
        if (offset <= (state.watermarks.get(partition) ?? -1)) continue;
        state.spentNanoUsd += increment.costNanoUsd;
        state.spentTokens += increment.tokens;
        state.watermarks.set(partition, offset);
        changes += 1;
      }
      return [...touched].map(([id, counter]) => useOf(counter, counters.get(id)));
    },

    async readBudgetUse(read, nowMs): Promise<BudgetWindowUse[]> {
      read.forEach(assertBudgetCounter);
      if (!Number.isSafeInteger(nowMs)) throw new RangeError(`nowMs must be an integer of ms, got ${String(nowMs)}`);
      return read.map((counter) => useOf(counter, existing(counter, nowMs)));
    },

    async markThresholdAlerted(counter, percent): Promise<void> {
      assertBudgetCounter(counter);
      assertPercent(percent);
      const state = created(counter, null);
      if (state.alertedPercents.has(percent)) return;
      state.alertedPercents.add(percent);
      changes += 1;
    },

    exportContent(): MemoryBudgetContent {
      return {
        counters: [...counters.values()].map((state) => ({
          counter: state.counter,
          spentNanoUsd: state.spentNanoUsd,
          spentTokens: state.spentTokens,
          watermarks: [...state.watermarks],
          alertedPercents: [...state.alertedPercents].sort((a, b) => a - b),
        })),
      };
    },

    changeCount: () => changes,

    async close(): Promise<void> {},
  };
}
