/**
 * Threshold detection and publication of budget alerts: exact at the boundary (bigint), on USD and
 * on tokens, only billed spend, each threshold once per window, daily caps and removed budgets
 * left out; published on tollgate.alerts keyed by budget id, acknowledged before marked.
 */
import { describe, expect, it } from 'vitest';
import {
  publishThresholdAlerts,
  reachedThresholds,
  thresholdAlertId,
  thresholdAlerts,
} from '../../../../consumers/alerts/publish-threshold-alerts.ts';
import type { BudgetRecord } from '../../../../schemas/control-plane/control-plane-records.ts';
import type { LogRecord } from '../../../../schemas/event-log/event-log.ts';
import { decodeTrafficEvent } from '../../../../schemas/events/traffic-event-codec.ts';
import type { BudgetCounter, BudgetWindowUse } from '../../../../schemas/state-store/budget-ledger.ts';
import { budgetWindowAt } from '../../../../schemas/control-plane/budget-periods.ts';
import { TOPICS } from '../../../../schemas/topics.ts';

const DAY_START = Date.UTC(2026, 0, 5);

function budget(overrides: Partial<BudgetRecord> = {}): BudgetRecord {
  return {
    budgetId: 'bgt_00000000000000aa',
    name: 'Search team daily',
    scope: 'team',
    scopeId: 'team_search',
    limitNanoUsd: 10_000_000_000n, // $10
    limitTokens: null,
    period: 'day',
    rollingMs: null,
    timeZone: 'UTC',
    thresholds: [50, 80, 100],
    downgradeModel: null,
    createdAt: DAY_START - 86_400_000,
    ...overrides,
  };
}

function use(counter: Partial<BudgetCounter>, spent: Partial<BudgetWindowUse> = {}): BudgetWindowUse {
  return {
    counter: {
      budgetId: 'bgt_00000000000000aa',
      windowStartMs: DAY_START,
      windowEndMs: DAY_START + 86_400_000,
      ...counter,
    },
    spentNanoUsd: 0n,
    spentTokens: 0,
    heldNanoUsd: 0n,
    heldTokens: 0,
    alertedPercents: [],
    ...spent,
  };
}

describe('reachedThresholds', () => {
  it('is exact at the USD boundary: spent × 100 ≥ percent × limit', () => {
    const b = budget();
    expect(reachedThresholds(b, { spentNanoUsd: 4_999_999_999n, spentTokens: 0, alertedPercents: [] })).toEqual([]);
    expect(reachedThresholds(b, { spentNanoUsd: 5_000_000_000n, spentTokens: 0, alertedPercents: [] })).toEqual([50]);
    expect(reachedThresholds(b, { spentNanoUsd: 8_000_000_000n, spentTokens: 0, alertedPercents: [] })).toEqual([
      50, 80,
    ]);
    expect(reachedThresholds(b, { spentNanoUsd: 12_000_000_000n, spentTokens: 0, alertedPercents: [] })).toEqual([
      50, 80, 100,
    ]);
    // A limit that percents do not divide: 33 % of 3 nano-USD is 0.99 nano-USD, reached by 1.
    const odd = budget({ limitNanoUsd: 3n, thresholds: [33, 34] });
    expect(reachedThresholds(odd, { spentNanoUsd: 1n, spentTokens: 0, alertedPercents: [] })).toEqual([33]);
  });

  it('stays exact beyond 2^53 nano-USD', () => {
    const big = budget({ limitNanoUsd: 2n ** 62n, thresholds: [50] });
    const half = 2n ** 61n;
    expect(reachedThresholds(big, { spentNanoUsd: half - 1n, spentTokens: 0, alertedPercents: [] })).toEqual([]);
    expect(reachedThresholds(big, { spentNanoUsd: half, spentTokens: 0, alertedPercents: [] })).toEqual([50]);
  });

  it('counts tokens against a token limit, and either limit reaching a threshold is enough', () => {
    const tokens = budget({ limitNanoUsd: null, limitTokens: 1_000, thresholds: [50, 80] });
    expect(reachedThresholds(tokens, { spentNanoUsd: 10n ** 18n, spentTokens: 499, alertedPercents: [] })).toEqual([]);
    expect(reachedThresholds(tokens, { spentNanoUsd: 0n, spentTokens: 500, alertedPercents: [] })).toEqual([50]);
    const both = budget({ limitTokens: 1_000, thresholds: [50, 80] });
    expect(reachedThresholds(both, { spentNanoUsd: 1n, spentTokens: 800, alertedPercents: [] })).toEqual([50, 80]);
    expect(reachedThresholds(both, { spentNanoUsd: 8_000_000_000n, spentTokens: 0, alertedPercents: [] })).toEqual([
      50, 80,
    ]);
  });

  it('leaves out the thresholds already alerted for the window', () => {
    const b = budget();
    expect(reachedThresholds(b, { spentNanoUsd: 9_000_000_000n, spentTokens: 0, alertedPercents: [50] })).toEqual([80]);
    expect(reachedThresholds(b, { spentNanoUsd: 9_000_000_000n, spentTokens: 0, alertedPercents: [50, 80] })).toEqual(
      [],
    );
  });
});

describe('thresholdAlerts', () => {
  const budgets = new Map<string, BudgetRecord>();
  const source = { budget: (id: string) => budgets.get(id) };

  it('counts billed spend only, never holds', () => {
    budgets.set('bgt_00000000000000aa', budget());
    const held = use({}, { spentNanoUsd: 1_000_000_000n, heldNanoUsd: 9_000_000_000n, heldTokens: 10 ** 9 });
    expect(thresholdAlerts([held], source, 1)).toEqual([]);
  });

  it('builds one alert per threshold with the alert id <budgetId>@<windowStartMs>:<percent> and the window', () => {
    budgets.set('bgt_00000000000000aa', budget());
    const [first, second] = thresholdAlerts([use({}, { spentNanoUsd: 8_500_000_000n, spentTokens: 1234 })], source, 42);
    expect(first).toEqual({
      eventId: `bgt_00000000000000aa@${DAY_START}:50`,
      occurredAt: 42,
      budgetId: 'bgt_00000000000000aa',
      budgetName: 'Search team daily',
      scope: 'team',
      scopeId: 'team_search',
      windowStartMs: DAY_START,
      windowEndMs: DAY_START + 86_400_000,
      thresholdPercent: 50,
      limitNanoUsd: '10000000000',
      limitTokens: null,
      spentNanoUsd: '8500000000',
      spentTokens: 1234,
    });
    expect(second?.eventId).toBe(`bgt_00000000000000aa@${DAY_START}:80`);
    expect(thresholdAlertId({ budgetId: 'b', windowStartMs: 0 }, 100)).toBe('b@0:100');
  });

  it('alerts each window of a rolling budget, and a lifetime window (never resets), on its own', () => {
    const rolling = budget({ budgetId: 'bgt_00000000000000bb', period: 'rolling', rollingMs: 3_600_000 });
    budgets.set(rolling.budgetId, rolling);
    const w1 = budgetWindowAt(rolling, DAY_START + 10);
    const w2 = budgetWindowAt(rolling, DAY_START + 3_600_000 + 10);
    const lifetime = budget({ budgetId: 'bgt_00000000000000cc', period: 'lifetime', thresholds: [90] });
    budgets.set(lifetime.budgetId, lifetime);
    const alerts = thresholdAlerts(
      [
        use(
          { budgetId: rolling.budgetId, windowStartMs: w1.startMs, windowEndMs: w1.endMs },
          { spentNanoUsd: 5_000_000_000n },
        ),
        use(
          { budgetId: rolling.budgetId, windowStartMs: w2.startMs, windowEndMs: w2.endMs },
          { spentNanoUsd: 5_000_000_000n },
        ),
        use({ budgetId: lifetime.budgetId, windowStartMs: 0, windowEndMs: null }, { spentNanoUsd: 9_000_000_000n }),
      ],
      source,
      1,
    );
    expect(alerts.map((a) => [a.eventId, a.windowEndMs])).toEqual([
      [`bgt_00000000000000bb@${w1.startMs}:50`, w1.endMs],
      [`bgt_00000000000000bb@${w2.startMs}:50`, w2.endMs],
      ['bgt_00000000000000cc@0:90', null],
    ]);
    expect(w2.startMs - w1.startMs).toBe(3_600_000);
  });

  it('leaves out daily request and token caps, unknown budgets, and counts a window met twice once (its last use)', () => {
    budgets.set('bgt_00000000000000aa', budget());
    const alerts = thresholdAlerts(
      [
        use({ budgetId: 'rpd:key:key_1' }, { spentTokens: 10 ** 6 }),
        use({ budgetId: 'tpd:team:team_1' }, { spentTokens: 10 ** 9 }),
        use({ budgetId: 'bgt_removed' }, { spentNanoUsd: 10n ** 15n }),
        use({}, { spentNanoUsd: 5_000_000_000n }),
        use({}, { spentNanoUsd: 8_000_000_000n }),
      ],
      source,
      1,
    );
    expect(alerts.map((a) => [a.thresholdPercent, a.spentNanoUsd])).toEqual([
      [50, '8000000000'],
      [80, '8000000000'],
    ]);
  });
});

describe('publishThresholdAlerts', () => {
  it('appends each alert to tollgate.alerts keyed by budget id, waits for the acknowledgement, then marks it', async () => {
    const steps: string[] = [];
    const records: LogRecord[] = [];
    const eventLog = {
      publish: (record: LogRecord) => void (records.push(record), steps.push(`publish ${record.key}`)),
      flush: async () => void steps.push('flush'),
    };
    const marks: Array<[string, number]> = [];
    const ledger = {
      markThresholdAlerted: async (counter: BudgetCounter, percent: number) => {
        marks.push([`${counter.budgetId}@${counter.windowStartMs}`, percent]);
        steps.push(`mark ${percent}`);
      },
    };
    const published = await publishThresholdAlerts(
      { eventLog, budgets: ledger, controlPlane: { budget: () => budget() }, now: () => 7 },
      [use({}, { spentNanoUsd: 8_000_000_000n, alertedPercents: [] })],
    );
    expect(steps).toEqual([
      'publish bgt_00000000000000aa',
      'publish bgt_00000000000000aa',
      'flush',
      'mark 50',
      'mark 80',
    ]);
    expect(records.every((r) => r.topic === TOPICS.alerts)).toBe(true);
    const decoded = records.map((r) => decodeTrafficEvent(r.value));
    expect(decoded).toEqual(published.map((event) => ({ type: 'BudgetThresholdCrossed', event })));
    expect(marks).toEqual([
      [`bgt_00000000000000aa@${DAY_START}`, 50],
      [`bgt_00000000000000aa@${DAY_START}`, 80],
    ]);
  });

  it('marks nothing when the log does not acknowledge (the batch is redelivered and publishes the same ids)', async () => {
    const marks: number[] = [];
    const attempt = () =>
      publishThresholdAlerts(
        {
          eventLog: { publish: () => undefined, flush: async () => Promise.reject(new Error('spool full')) },
          budgets: { markThresholdAlerted: async (_c, percent) => void marks.push(percent) },
          controlPlane: { budget: () => budget() },
        },
        [use({}, { spentNanoUsd: 5_000_000_000n })],
      );
    await expect(attempt()).rejects.toThrow('spool full');
    expect(marks).toEqual([]);
  });

  it('does nothing when no threshold is newly reached', async () => {
    let flushed = false;
    const published = await publishThresholdAlerts(
      {
        eventLog: { publish: () => undefined, flush: async () => void (flushed = true) },
        budgets: { markThresholdAlerted: async () => undefined },
        controlPlane: { budget: () => budget() },
      },
      [use({}, { spentNanoUsd: 9_000_000_000n, alertedPercents: [50, 80] })],
    );
    expect(published).toEqual([]);
    expect(flushed).toBe(false);
  });
});
