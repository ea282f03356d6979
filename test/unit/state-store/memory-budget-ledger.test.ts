/**
 * The BudgetLedger contract (budget-ledger-contract.ts) on the memory adapter, and what only the
 * memory adapter has: its content for a snapshot of the embedded state, bounded memory (ended
 * holds and forgotten windows are swept), and being the memory state store's ledger in open-adapters.ts.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryBudgetLedger } from '../../../infra/state-store/memory/memory-budget-ledger.ts';
import { openBudgetLedger, openStateStore } from '../../../infra/open-adapters.ts';
import { dayCounter, describeBudgetLedgerContract, T0 } from './budget-ledger-contract.ts';

describeBudgetLedgerContract('memory', (count) => {
  const shared = createMemoryBudgetLedger();
  return Array.from({ length: count }, () => shared);
});

describe('memory budget ledger', () => {
  const position = (offset: number) => ({ topic: 'tollgate.usage', partition: 0, offset: String(offset) });

  it('exports spend, watermarks and alerts (not holds), and starts again from that content', async () => {
    const ledger = createMemoryBudgetLedger();
    const c = dayCounter('b-export');
    await ledger.reserve(
      'r0',
      [{ counter: c, limitNanoUsd: null, limitTokens: null, reserveNanoUsd: 9n, reserveTokens: 9 }],
      T0 + 1000,
      T0,
    );
    await ledger.addBudgetSpendBatch(
      [{ position: position(3), requestId: 'r1', counter: c, costNanoUsd: 2n ** 62n, tokens: 12 }],
      T0,
    );
    await ledger.markThresholdAlerted(c, 50);
    const content = ledger.exportContent();
    expect(content).toEqual({
      counters: [
        {
          counter: c,
          spentNanoUsd: 2n ** 62n,
          spentTokens: 12,
          watermarks: [['tollgate.usage:0', 3]],
          alertedPercents: [50],
        },
      ],
    });
    expect(ledger.changeCount()).toBe(2);
    const restored = createMemoryBudgetLedger(content);
    expect(await restored.readBudgetUse([c], T0)).toMatchObject([
      { spentNanoUsd: 2n ** 62n, spentTokens: 12, heldNanoUsd: 0n, alertedPercents: [50] },
    ]);
    // the watermark came along: a replayed position is not counted again
    await restored.addBudgetSpendBatch(
      [{ position: position(3), requestId: 'r1', counter: c, costNanoUsd: 1n, tokens: 1 }],
      T0,
    );
    expect((await restored.readBudgetUse([c], T0))[0]?.spentNanoUsd).toBe(2n ** 62n);
  });

  it('is the memory state store’s own ledger when the process opens it without Redis', () => {
    const settings = { dataDir: '/nonexistent' };
    const state = openStateStore(settings);
    expect(openBudgetLedger(settings, state)).toBe((state as { budgets?: unknown }).budgets);
    expect(openBudgetLedger(settings)).not.toBe(openBudgetLedger(settings));
  });

  it('sweeps ended holds and forgotten windows it is not asked about again', async () => {
    const ledger = createMemoryBudgetLedger();
    const now = Date.now();
    for (let i = 0; i < 500; i++) {
      const counter = dayCounter(`b-sweep-${i}`, now - 40 * 86_400_000, now - 39 * 86_400_000);
      await ledger.markThresholdAlerted(counter, 50);
      await ledger.reserve(
        `r${i}`,
        [
          {
            counter: dayCounter('b-live', now, now + 86_400_000),
            limitNanoUsd: null,
            limitTokens: null,
            reserveNanoUsd: 1n,
            reserveTokens: 1,
          },
        ],
        now + 10,
        now,
      );
    }
    expect(ledger.exportContent().counters.length).toBe(501);
    // enough calls later a sweep has run: the old windows are gone, the ended holds dropped
    for (let i = 0; i < 1100; i++) await ledger.readBudgetUse([], now + 20);
    await ledger.reserve('x', [], now + 30, now + 20);
    for (let i = 0; i < 1100; i++) await ledger.settle('none', [], 0n, 0, now + 30, now + 20);
    expect(ledger.exportContent().counters.map((c) => c.counter.budgetId)).toEqual(['b-live']);
    expect((await ledger.readBudgetUse([dayCounter('b-live', now, now + 86_400_000)], now + 20))[0]?.heldNanoUsd).toBe(
      0n,
    );
  });
});
