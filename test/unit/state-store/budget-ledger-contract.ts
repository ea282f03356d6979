/**
 * The BudgetLedger contract (schemas/state-store/budget-ledger.ts), one suite every adapter runs
 * (memory in memory-budget-ledger.test.ts; a single Redis and a Redis Cluster in
 * test/integration/state-store/redis-budget-ledger.test.ts): refusal at the USD and the token
 * limit, all-or-nothing over claims, re-reservation and settlement replacing holds, hold expiry,
 * spend batches exact under redelivery and replay and dropping holds, exact amounts beyond 2^53,
 * malformed input refused with nothing changed, concurrent reservations from two ledger instances
 * sharing one state, alert marks, and forgetting a window 35 days after its end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type {
  BudgetClaim,
  BudgetCounter,
  BudgetLedger,
  BudgetSpendIncrement,
} from '../../../schemas/state-store/budget-ledger.ts';

/**
 * The instant the tests run at (ms since epoch): the time of the run, since the Redis adapter
 * expires a window's keys 35 days after its end by the server's clock.
 */
export const T0 = Date.now();

/** A ledger the suite can close. */
export type ClosableBudgetLedger = BudgetLedger & { close(): Promise<void> };

/** Makes `count` ledgers sharing one fresh state (Redis: separate connections, like separate nodes). */
export type BudgetLedgerFactory = (count: number) => ClosableBudgetLedger[];

const DAY_MS = 86_400_000;

/** A day window at T0 of budget `budgetId`. */
export const dayCounter = (budgetId: string, startMs = T0, endMs: number | null = T0 + DAY_MS): BudgetCounter => ({
  budgetId,
  windowStartMs: startMs,
  windowEndMs: endMs,
});

const claim = (
  counter: BudgetCounter,
  reserveNanoUsd: bigint,
  limitNanoUsd: bigint | null,
  reserveTokens = 0,
  limitTokens: number | null = null,
): BudgetClaim => ({ counter, limitNanoUsd, limitTokens, reserveNanoUsd, reserveTokens });

const at = (offset: number, partition = 0, topic = 'tollgate.usage') => ({ topic, partition, offset: String(offset) });

const increment = (
  offset: number,
  counter: BudgetCounter,
  costNanoUsd: bigint,
  tokens = 0,
  requestId = `req-${offset}`,
): BudgetSpendIncrement => ({ position: at(offset), requestId, counter, costNanoUsd, tokens });

/** Registers the contract suite of one adapter; `make` is called inside the tests only. */
export function describeBudgetLedgerContract(adapter: string, make: BudgetLedgerFactory): void {
  describe(`BudgetLedger contract: ${adapter}`, () => {
    const open: ClosableBudgetLedger[] = [];
    const fresh = (count = 1): ClosableBudgetLedger[] => {
      const ledgers = make(count);
      open.push(...new Set(ledgers));
      return ledgers;
    };
    const one = (): ClosableBudgetLedger => fresh(1)[0] as ClosableBudgetLedger;
    afterEach(async () => {
      await Promise.all(open.splice(0).map((ledger) => ledger.close()));
    });
    const until = T0 + 60_000;

    it('reads zero for a window never written', async () => {
      const [use] = await one().readBudgetUse([dayCounter('b-none')], T0);
      expect(use).toEqual({
        counter: dayCounter('b-none'),
        spentNanoUsd: 0n,
        spentTokens: 0,
        heldNanoUsd: 0n,
        heldTokens: 0,
        alertedPercents: [],
      });
    });

    it('admits while the use is below the USD limit, then refuses with nothing held', async () => {
      const ledger = one();
      const c = dayCounter('b-usd');
      const first = await ledger.reserve('r1', [claim(c, 60n, 100n)], until, T0);
      expect(first).toMatchObject({ ok: true, uses: [{ heldNanoUsd: 60n, spentNanoUsd: 0n }] });
      // 60 < 100: admitted, though the use then passes the limit
      expect(await ledger.reserve('r2', [claim(c, 60n, 100n)], until, T0)).toMatchObject({
        ok: true,
        uses: [{ heldNanoUsd: 120n }],
      });
      const refused = await ledger.reserve('r3', [claim(c, 1n, 100n)], until, T0);
      expect(refused).toMatchObject({ ok: false, refusedBy: 0, uses: [{ heldNanoUsd: 120n }] });
      const [use] = await ledger.readBudgetUse([c], T0);
      expect(use?.heldNanoUsd).toBe(120n);
      // a limit of 0 refuses at once; no limit never refuses
      expect((await ledger.reserve('r4', [claim(dayCounter('b-zero'), 1n, 0n)], until, T0)).ok).toBe(false);
      expect((await ledger.reserve('r5', [claim(c, 1n, null)], until, T0)).ok).toBe(true);
    });

    it('refuses at the token limit, counting spent and held tokens', async () => {
      const ledger = one();
      const c = dayCounter('b-tok');
      await ledger.addBudgetSpendBatch([increment(1, c, 5n, 700)], T0);
      expect((await ledger.reserve('r1', [claim(c, 0n, null, 200, 1000)], until, T0)).ok).toBe(true);
      const refused = await ledger.reserve('r2', [claim(c, 0n, null, 1, 900)], until, T0);
      expect(refused).toMatchObject({ ok: false, refusedBy: 0, uses: [{ spentTokens: 700, heldTokens: 200 }] });
      expect((await ledger.reserve('r3', [claim(c, 0n, null, 1, 901)], until, T0)).ok).toBe(true);
    });

    it('holds all claims or none, naming the first claim at its limit', async () => {
      const ledger = one();
      const [a, b, c] = [dayCounter('b-all-a'), dayCounter('b-all-b'), dayCounter('b-all-c')];
      await ledger.addBudgetSpendBatch([increment(1, b, 100n), increment(2, c, 100n)], T0);
      const refused = await ledger.reserve(
        'r1',
        [claim(a, 10n, 1000n), claim(b, 10n, 100n), claim(c, 10n, 50n)],
        until,
        T0,
      );
      expect(refused.ok).toBe(false);
      expect(refused.ok === false && refused.refusedBy).toBe(1);
      const uses = await ledger.readBudgetUse([a, b, c], T0);
      expect(uses.map((use) => use.heldNanoUsd)).toEqual([0n, 0n, 0n]);
      expect(uses.map((use) => use.spentNanoUsd)).toEqual([0n, 100n, 100n]);
      const admitted = await ledger.reserve('r2', [claim(a, 10n, 1000n), claim(b, 10n, 101n)], until, T0);
      expect(admitted).toMatchObject({
        ok: true,
        uses: [{ heldNanoUsd: 10n }, { heldNanoUsd: 10n, spentNanoUsd: 100n }],
      });
    });

    it('replaces a request’s hold when it reserves the same counter again', async () => {
      const ledger = one();
      const c = dayCounter('b-again');
      await ledger.reserve('r1', [claim(c, 50n, null, 500)], until, T0);
      await ledger.reserve('r1', [claim(c, 30n, null, 300)], until, T0);
      const [use] = await ledger.readBudgetUse([c], T0);
      expect(use).toMatchObject({ heldNanoUsd: 30n, heldTokens: 300 });
    });

    it('settles only the holds that exist, and keeps the settled hold until its new end', async () => {
      const ledger = one();
      const [a, b] = [dayCounter('b-settle-a'), dayCounter('b-settle-b')];
      await ledger.reserve('r1', [claim(a, 100n, null, 1000)], T0 + 1000, T0);
      await ledger.reserve('r2', [claim(a, 7n, null, 7)], T0 + 1000, T0);
      await ledger.settle('r1', [a, b], 40n, 400, T0 + 5000, T0 + 10);
      expect(await ledger.readBudgetUse([a, b], T0 + 10)).toMatchObject([
        { heldNanoUsd: 47n, heldTokens: 407 },
        { heldNanoUsd: 0n, heldTokens: 0 },
      ]);
      // r2's hold ended at T0 + 1000, r1's settled one lasts until T0 + 5000
      expect(await ledger.readBudgetUse([a], T0 + 1000)).toMatchObject([{ heldNanoUsd: 40n, heldTokens: 400 }]);
      // settling an ended hold changes nothing
      await ledger.settle('r2', [a], 1n, 1, T0 + 9000, T0 + 1000);
      expect(await ledger.readBudgetUse([a], T0 + 4999)).toMatchObject([{ heldNanoUsd: 40n }]);
      expect(await ledger.readBudgetUse([a], T0 + 5000)).toMatchObject([{ heldNanoUsd: 0n }]);
    });

    it('ends holds at holdUntilMs, so a refused window admits again', async () => {
      const ledger = one();
      const c = dayCounter('b-expire');
      await ledger.reserve('r1', [claim(c, 100n, 100n)], T0 + 1000, T0);
      expect((await ledger.reserve('r2', [claim(c, 1n, 100n)], T0 + 2000, T0 + 999)).ok).toBe(false);
      expect((await ledger.readBudgetUse([c], T0 + 999))[0]?.heldNanoUsd).toBe(100n);
      expect((await ledger.readBudgetUse([c], T0 + 1000))[0]?.heldNanoUsd).toBe(0n);
      expect((await ledger.reserve('r2', [claim(c, 1n, 100n)], T0 + 2000, T0 + 1000)).ok).toBe(true);
    });

    it('adds each position once per counter under redelivery and replay, and drops the holds', async () => {
      const ledger = one();
      const [a, b] = [dayCounter('b-spend-a'), dayCounter('b-spend-b')];
      await ledger.reserve('req-1', [claim(a, 1000n, null, 100), claim(b, 1000n, null, 100)], until, T0);
      await ledger.reserve('req-3', [claim(a, 500n, null, 50)], until, T0);
      const batch = [
        increment(1, a, 10n, 1),
        increment(1, b, 10n, 1),
        increment(2, a, 20n, 2),
        increment(3, b, 30n, 3),
      ];
      const uses = await ledger.addBudgetSpendBatch(batch, T0);
      // order of first appearance; req-1's holds dropped in both counters, req-3 (billed in b only) still holds in a
      expect(uses).toMatchObject([
        { counter: a, spentNanoUsd: 30n, spentTokens: 3, heldNanoUsd: 500n, heldTokens: 50 },
        { counter: b, spentNanoUsd: 40n, spentTokens: 4, heldNanoUsd: 0n, heldTokens: 0 },
      ]);
      // the same batch again (a redelivery), then an older part of it (a replay): nothing more
      await ledger.addBudgetSpendBatch(batch, T0);
      await ledger.addBudgetSpendBatch(batch.slice(0, 2), T0);
      // a record already counted still drops its request's hold
      await ledger.reserve('req-2', [claim(a, 99n, null)], until, T0);
      expect(await ledger.addBudgetSpendBatch([increment(2, a, 20n, 2)], T0)).toMatchObject([
        { spentNanoUsd: 30n, heldNanoUsd: 500n },
      ]);
      // another partition has its own watermark
      await ledger.addBudgetSpendBatch([{ ...increment(1, a, 5n, 1), position: at(1, 1) }], T0);
      expect(await ledger.readBudgetUse([a, b], T0)).toMatchObject([
        { spentNanoUsd: 35n, spentTokens: 4 },
        { spentNanoUsd: 40n, spentTokens: 4 },
      ]);
      // the next position counts
      expect(await ledger.addBudgetSpendBatch([increment(4, b, 1n, 1)], T0)).toMatchObject([{ spentNanoUsd: 41n }]);
    });

    it('is exact beyond 2^53 nano-USD, in sums and against limits', async () => {
      const ledger = one();
      const c = dayCounter('b-big');
      const big = 2n ** 60n + 1n;
      await ledger.addBudgetSpendBatch([increment(1, c, big), increment(2, c, big)], T0);
      const spent = 2n ** 61n + 2n;
      expect((await ledger.readBudgetUse([c], T0))[0]?.spentNanoUsd).toBe(spent);
      // limits one nano-USD apart, far beyond what a double tells apart
      expect((await ledger.reserve('r1', [claim(c, 1n, spent)], until, T0)).ok).toBe(false);
      expect((await ledger.reserve('r1', [claim(c, 1n, spent + 1n)], until, T0)).ok).toBe(true);
      expect((await ledger.reserve('r2', [claim(c, 1n, spent + 1n)], until, T0)).ok).toBe(false);
      expect((await ledger.reserve('r2', [claim(c, 2n ** 62n, spent + 2n)], until, T0)).ok).toBe(true);
      expect((await ledger.readBudgetUse([c], T0))[0]?.heldNanoUsd).toBe(2n ** 62n + 1n);
      // up to 2^63 − 1 exactly; one more is refused with nothing changed
      const max = 2n ** 63n - 1n;
      const d = dayCounter('b-max');
      await ledger.addBudgetSpendBatch([increment(1, d, max - 5n)], T0);
      await expect(ledger.addBudgetSpendBatch([increment(2, d, 5n), increment(3, d, 1n)], T0)).rejects.toThrow(
        RangeError,
      );
      expect((await ledger.readBudgetUse([d], T0))[0]?.spentNanoUsd).toBe(max - 5n);
      await ledger.addBudgetSpendBatch([increment(2, d, 5n)], T0);
      expect((await ledger.readBudgetUse([d], T0))[0]?.spentNanoUsd).toBe(max);
    });

    it('refuses malformed input with a RangeError before changing anything', async () => {
      const ledger = one();
      const c = dayCounter('b-bad');
      await ledger.reserve('held', [claim(c, 5n, null)], until, T0);
      const good = increment(1, c, 10n, 1, 'held');
      const badBatches: BudgetSpendIncrement[][] = [
        [good, increment(2, c, -1n)],
        [good, increment(2, c, 2n ** 63n)],
        [good, increment(2, c, 1n, 1.5)],
        [good, increment(2, c, 1n, -1)],
        [good, increment(2, c, 1n, 1, '')],
        [good, { ...increment(2, c, 1n), position: at(2, 1) }],
        [good, { ...increment(2, c, 1n), position: at(2, 0, 'other') }],
        [increment(2, c, 1n), good],
        [good, increment(1, c, 1n)],
        [good, { ...increment(2, c, 1n), counter: { ...c, budgetId: '' } }],
        [good, { ...increment(2, c, 1n), counter: { ...c, windowEndMs: c.windowStartMs } }],
        [good, { ...increment(2, c, 1n), position: { ...at(2), offset: 'x' } }],
      ];
      for (const batch of badBatches) await expect(ledger.addBudgetSpendBatch(batch, T0)).rejects.toThrow(RangeError);
      expect(await ledger.readBudgetUse([c], T0)).toMatchObject([{ spentNanoUsd: 0n, heldNanoUsd: 5n }]);
      await expect(ledger.reserve('r', [claim(c, -1n, null)], until, T0)).rejects.toThrow(RangeError);
      await expect(ledger.reserve('', [claim(c, 1n, null)], until, T0)).rejects.toThrow(RangeError);
      await expect(ledger.reserve('r', [claim(c, 1n, -5n)], until, T0)).rejects.toThrow(RangeError);
      await expect(ledger.reserve('r', [claim(c, 1n, null), claim(c, 1n, null)], until, T0)).rejects.toThrow(
        RangeError,
      );
      await expect(ledger.settle('held', [c], -1n, 0, until, T0)).rejects.toThrow(RangeError);
      await expect(ledger.markThresholdAlerted(c, 0)).rejects.toThrow(RangeError);
      await expect(ledger.markThresholdAlerted(c, 100.5)).rejects.toThrow(RangeError);
      expect(await ledger.readBudgetUse([c], T0)).toMatchObject([
        { spentNanoUsd: 0n, heldNanoUsd: 5n, alertedPercents: [] },
      ]);
    });

    it('several counters may share a position; one counter takes a position once', async () => {
      const ledger = one();
      const [a, b] = [dayCounter('b-share-a'), dayCounter('b-share-b')];
      const uses = await ledger.addBudgetSpendBatch(
        [increment(5, a, 1n), increment(5, b, 1n), increment(6, b, 2n), increment(6, a, 2n)],
        T0,
      );
      expect(uses.map((use) => [use.counter.budgetId, use.spentNanoUsd])).toEqual([
        ['b-share-a', 3n],
        ['b-share-b', 3n],
      ]);
      await expect(ledger.addBudgetSpendBatch([increment(7, a, 1n), increment(7, a, 1n)], T0)).rejects.toThrow(
        RangeError,
      );
    });

    it('never holds past the limit under concurrent reservations from two nodes', async () => {
      const ledgers = fresh(2);
      const c = dayCounter('b-race');
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (ledgers[i % 2] as BudgetLedger).reserve(`r${i}`, [claim(c, 10n, 100n, 1, 1000)], until, T0),
        ),
      );
      // each admission saw use < 100: exactly the ten at 0, 10, …, 90
      expect(results.filter((result) => result.ok)).toHaveLength(10);
      expect((await (ledgers[0] as BudgetLedger).readBudgetUse([c], T0))[0]).toMatchObject({
        heldNanoUsd: 100n,
        heldTokens: 10,
      });
    });

    it('leaves no hold behind for refused multi-counter reservations under concurrency', async () => {
      const ledgers = fresh(2);
      const [a, b] = [dayCounter('b-race2-a'), dayCounter('b-race2-b')];
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          (ledgers[i % 2] as BudgetLedger).reserve(`r${i}`, [claim(a, 10n, 1000n), claim(b, 10n, 100n)], until, T0),
        ),
      );
      const admitted = results.filter((result) => result.ok).length;
      expect(admitted).toBeGreaterThan(0);
      expect(admitted).toBeLessThanOrEqual(10);
      const uses = await (ledgers[1] as BudgetLedger).readBudgetUse([a, b], T0);
      expect(uses.map((use) => use.heldNanoUsd)).toEqual([BigInt(admitted * 10), BigInt(admitted * 10)]);
    });

    it('records alert marks per window, ascending, in every use', async () => {
      const ledger = one();
      const c = dayCounter('b-alert');
      await ledger.markThresholdAlerted(c, 80);
      await ledger.markThresholdAlerted(c, 50);
      await ledger.markThresholdAlerted(c, 80);
      await ledger.markThresholdAlerted(c, 12.5);
      expect((await ledger.readBudgetUse([c], T0))[0]?.alertedPercents).toEqual([12.5, 50, 80]);
      expect((await ledger.addBudgetSpendBatch([increment(1, c, 1n)], T0))[0]?.alertedPercents).toEqual([12.5, 50, 80]);
      const reserved = await ledger.reserve('r', [claim(c, 1n, null)], until, T0);
      expect(reserved.uses[0]?.alertedPercents).toEqual([12.5, 50, 80]);
      // another window of the same budget has its own marks
      expect(
        (await ledger.readBudgetUse([dayCounter('b-alert', T0 + DAY_MS, T0 + 2 * DAY_MS)], T0))[0]?.alertedPercents,
      ).toEqual([]);
    });

    it('forgets a window 35 days after its end, keeps later and lifetime ones', async () => {
      const ledger = one();
      const now = Date.now();
      const old = dayCounter('b-old', now - 37 * DAY_MS, now - 36 * DAY_MS);
      const recent = dayCounter('b-recent', now - 30 * DAY_MS, now - 29 * DAY_MS);
      const lifetime = dayCounter('b-life', 0, null);
      await ledger.addBudgetSpendBatch(
        [increment(1, old, 5n), increment(1, recent, 6n), increment(1, lifetime, 7n)],
        now,
      );
      await ledger.markThresholdAlerted(old, 50);
      const uses = await ledger.readBudgetUse([old, recent, lifetime], now + 1);
      expect(uses.map((use) => use.spentNanoUsd)).toEqual([0n, 6n, 7n]);
    });
  });
}
