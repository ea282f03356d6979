/**
 * The budget ledger port: spend per budget window, exact across any number of gateway nodes.
 * Adapters: Redis (Lua, one hash tag per window counter) and in-process memory.
 *
 * A window counter (`<budgetId>@<windowStartMs>`) holds:
 * - `spent` — nano-USD and tokens of the UsageRecorded events billed into it. Only the consumers
 *   add to it (addBudgetSpendBatch), each log position once per counter (a watermark per
 *   partition, as the spend counters of state-store.ts: exact under redelivery and replay, at any
 *   age, with no time-windowed dedupe keys).
 * - `held` — per admitted request, a hold: its worst-case cost while it runs (reserve), replaced
 *   by its real cost when it ends (settle), and dropped when the consumers add that cost to
 *   `spent` (addBudgetSpendBatch, same request id). A hold also ends at its `holdUntilMs` (a node
 *   that died mid-request leaves no hold behind for long).
 *
 * The use of a window is spent + the holds not yet expired. Admission refuses a claim when its use
 * has reached a limit: use ≥ limit (USD or tokens). So, as long as each request's real cost stays
 * within its hold, total spend in a window stays below limit + the largest hold of the requests
 * admitted just before the limit was reached, whatever the number of nodes.
 *
 * Outage: while its engine cannot answer in time, an adapter rejects with
 * StateStoreUnavailableError (state-store-unavailable.ts) within its deadline; the memory adapter never does.
 */
import type { LogPosition } from './state-store.ts';

/**
 * Budget ids of the counters that count requests (requests per day): their `tokens` are requests.
 * Admission holds 1 in each, the consumers add 1 per billed request.
 */
export const REQUEST_COUNTER_PREFIX = 'rpd:';

/** Budget ids of the counters of tokens per day: their `tokens` are tokens, their nano-USD unused. */
export const TOKEN_COUNTER_PREFIX = 'tpd:';

/** One window of one budget: counter id `<budgetId>@<windowStartMs>` (budget-periods.ts budgetCounterId). */
export interface BudgetCounter {
  readonly budgetId: string;
  /** ms since epoch; 0 for a lifetime budget */
  readonly windowStartMs: number;
  /** ms since epoch; null = never resets. An adapter may forget a counter some time after its end. */
  readonly windowEndMs: number | null;
}

/** What admission asks of one window: reserve `reserve*` unless its use has reached a limit. */
export interface BudgetClaim {
  readonly counter: BudgetCounter;
  /** nano-USD; null = no USD limit */
  readonly limitNanoUsd: bigint | null;
  /** tokens; null = no token limit */
  readonly limitTokens: number | null;
  /** Worst-case cost of the request, nano-USD (≥ 0). */
  readonly reserveNanoUsd: bigint;
  /** Worst-case tokens of the request, input estimate + max output tokens (≥ 0). */
  readonly reserveTokens: number;
}

/** A window's use after an operation. */
export interface BudgetWindowUse {
  readonly counter: BudgetCounter;
  /** Billed into the window, nano-USD. */
  readonly spentNanoUsd: bigint;
  /** Billed into the window, tokens. */
  readonly spentTokens: number;
  /** Sum of the live holds, nano-USD. */
  readonly heldNanoUsd: bigint;
  /** Sum of the live holds, tokens. */
  readonly heldTokens: number;
  /** Thresholds (percent) whose alert was published for this window (markThresholdAlerted), ascending. */
  readonly alertedPercents: ReadonlyArray<number>;
}

/** The answer to reserve: every claim held, or none (the index of the first claim at its limit). */
export type BudgetReservation =
  | { readonly ok: true; readonly uses: ReadonlyArray<BudgetWindowUse> }
  | { readonly ok: false; readonly refusedBy: number; readonly uses: ReadonlyArray<BudgetWindowUse> };

/** What one UsageRecorded record adds to one window counter. */
export interface BudgetSpendIncrement {
  /** The record it comes from: applied once per (counter, position). */
  readonly position: LogPosition;
  /** Drops this request's hold in the counter (whether or not the position was applied before). */
  readonly requestId: string;
  readonly counter: BudgetCounter;
  /** nano-USD, 0..2^63 − 1 */
  readonly costNanoUsd: bigint;
  /** tokens, input + output, ≥ 0 */
  readonly tokens: number;
}

/** The ledger. Times are ms since epoch; `nowMs` decides which holds have expired. */
export interface BudgetLedger {
  /**
   * Holds `reserve*` of each claim for `requestId` until `holdUntilMs`, unless some claim's use
   * (spent + live holds) has reached its limit: then nothing is held (all-or-nothing; on a Redis
   * Cluster the holds already taken are released before it answers). A second reserve of the
   * same request id and counter replaces its hold.
   * @throws RangeError on a negative amount, an empty id or a malformed counter
   */
  reserve(
    requestId: string,
    claims: ReadonlyArray<BudgetClaim>,
    holdUntilMs: number,
    nowMs: number,
  ): Promise<BudgetReservation>;
  /**
   * Replaces the request's hold in each counter by its real cost, kept until `holdUntilMs` (long
   * enough for the consumers to bill it). A counter where the request holds nothing (already
   * billed, or expired) is left alone.
   */
  settle(
    requestId: string,
    counters: ReadonlyArray<BudgetCounter>,
    costNanoUsd: bigint,
    tokens: number,
    holdUntilMs: number,
    nowMs: number,
  ): Promise<void>;
  /**
   * Adds each increment to its counter's `spent` unless that counter's watermark for the
   * increment's partition is at or past its offset, drops the request's hold in the counter, and
   * moves the watermark. Increments of ONE partition, in offset order (several counters may share
   * a position).
   * @returns the use of every counter touched, after the batch, in order of first appearance
   * @throws RangeError before anything changes when an increment is malformed, spans partitions
   *   or goes backwards
   */
  addBudgetSpendBatch(increments: ReadonlyArray<BudgetSpendIncrement>, nowMs: number): Promise<BudgetWindowUse[]>;
  /** The use of each counter, in order (0 for counters never written). */
  readBudgetUse(counters: ReadonlyArray<BudgetCounter>, nowMs: number): Promise<BudgetWindowUse[]>;
  /**
   * Records that the alert of threshold `percent` (0 < percent ≤ 100) of the counter's window was
   * published, so later batches do not publish it again (a crash between publishing and marking
   * publishes it twice with the same alert id: the notifier delivers it once).
   */
  markThresholdAlerted(counter: BudgetCounter, percent: number): Promise<void>;
}
