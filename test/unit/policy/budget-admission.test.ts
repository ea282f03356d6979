import { describe, expect, it } from 'vitest';
import { channelSchema } from '../../../gateway/config/config-schema.ts';
import {
  admitBudgets,
  applicableBudgets,
  settleBudgets,
  type BudgetAdmissionDeps,
  type BudgetSubject,
} from '../../../gateway/policy/budget-admission.ts';
import { createRequestPricer } from '../../../gateway/policy/request-pricer.ts';
import { resolveChannel } from '../../../gateway/routing/channel.ts';
import { createMemoryBudgetLedger } from '../../../infra/state-store/memory/memory-budget-ledger.ts';
import type {
  BudgetRecord,
  BudgetScope,
  KeyRecord,
  PriceRecord,
  TeamRecord,
} from '../../../schemas/control-plane/control-plane-records.ts';
import type { BudgetLedger } from '../../../schemas/state-store/budget-ledger.ts';
import { makeUsage } from '../../../gateway/canonical/usage.ts';

const USD = 1_000_000_000n;
/** 2026-11-28T10:00:00+01:00 (Europe/Berlin): the day ends at 2026-11-28T23:00:00Z. */
const T0 = Date.parse('2026-11-28T09:00:00Z');
const BERLIN_MIDNIGHT = Date.parse('2026-11-28T23:00:00Z');

const KEY: KeyRecord = {
  keyId: 'k1',
  publicId: 'abcdefghijkl',
  digest: 'd',
  name: 'k',
  userId: 'u1',
  rpm: null,
  tpm: null,
  quotaNanoUsd: null,
  expiresAt: null,
  models: null,
  enabled: true,
  revokedAt: null,
  createdAt: 0,
  teamId: 't1',
  tags: [],
  rpd: null,
  tpd: null,
  modelLimits: [],
};

const TEAM: TeamRecord = {
  teamId: 't1',
  name: 'Search',
  rpm: null,
  tpm: null,
  rpd: null,
  tpd: null,
  models: null,
  modelLimits: [],
  tags: [],
  disabled: false,
  members: new Map(),
  createdAt: 0,
};

function budget(over: Partial<BudgetRecord>): BudgetRecord {
  return {
    budgetId: 'bgt_team',
    name: 'team daily',
    scope: 'team',
    scopeId: 't1',
    limitNanoUsd: 1n * USD,
    limitTokens: null,
    period: 'day',
    rollingMs: null,
    timeZone: 'Europe/Berlin',
    thresholds: [],
    downgradeModel: null,
    createdAt: 0,
    ...over,
  };
}

/** $10 per million input tokens and $30 per million output tokens on gpt-big; gpt-small 1/10 of that. */
const PRICES: PriceRecord[] = [
  { priceId: 'p1', model: 'gpt-big', inputPerMTok: 10, outputPerMTok: 30, effectiveFrom: '1970-01-01T00:00:00Z' },
  { priceId: 'p2', model: 'gpt-small', inputPerMTok: 1, outputPerMTok: 3, effectiveFrom: '1970-01-01T00:00:00Z' },
];

const CHANNELS = [
  resolveChannel(channelSchema.parse({ id: 'c1', provider: 'openai', apiKey: 'x', models: ['gpt-big', 'gpt-small'] })),
];

function deps(budgets: BudgetRecord[], ledger: BudgetLedger = createMemoryBudgetLedger(), now = { t: T0 }) {
  const result: BudgetAdmissionDeps = {
    ledger,
    directory: {
      budgetsFor: (scope: BudgetScope, scopeId: string) =>
        budgets.filter((b) => b.scope === scope && b.scopeId === scopeId),
    },
    pricer: createRequestPricer({
      prices: () => PRICES,
      version: () => 1,
      channelsServing: (model) => CHANNELS.filter((c) => c.models.has(model)),
    }),
    capsTimeZone: 'Europe/Berlin',
    clock: () => now.t,
  };
  return { deps: result, now, ledger };
}

function subject(over: Partial<BudgetSubject> = {}): BudgetSubject {
  return {
    requestId: `r-${Math.random()}`,
    key: KEY,
    team: TEAM,
    endUserId: null,
    tags: [],
    model: 'gpt-big',
    inputTokens: 1000,
    maxOutputTokens: 1000,
    ...over,
  };
}

describe('budget admission', () => {
  it('holds the worst case: input at the input price plus max output at the output price', async () => {
    const { deps: d } = deps([budget({})]);
    const admitted = await admitBudgets(d, subject());
    expect(admitted.ok).toBe(true);
    if (!admitted.ok) return;
    // 1000 × $10/M + 1000 × $30/M = $0.04
    expect(admitted.uses[0]!.heldNanoUsd).toBe(40_000_000n);
    expect(admitted.holds?.counters).toEqual([
      { budgetId: 'bgt_team', windowStartMs: Date.parse('2026-11-27T23:00:00Z'), windowEndMs: BERLIN_MIDNIGHT },
    ]);
  });

  it('refuses with budget_exceeded and retry-after to the window end once use reaches the limit, and admits again in the next window', async () => {
    const { deps: d, now } = deps([budget({ limitNanoUsd: 100_000_000n })]); // $0.10
    const admitted = [];
    for (let i = 0; i < 3; i += 1) admitted.push(await admitBudgets(d, subject()));
    expect(admitted.map((a) => a.ok)).toEqual([true, true, true]); // 0, 0.04, 0.08 < 0.10
    const refused = await admitBudgets(d, subject());
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe('budget_exceeded');
    expect(refused.error.status).toBe(429);
    expect(refused.error.retryAfterMs).toBe(BERLIN_MIDNIGHT - T0);
    expect(refused.error.message).toContain("Budget 'team daily' of team t1");
    now.t = BERLIN_MIDNIGHT; // the next day in Berlin
    expect((await admitBudgets(d, subject())).ok).toBe(true);
  });

  it('settles a hold down to the real cost, so the freed room admits more', async () => {
    const { deps: d } = deps([budget({ limitNanoUsd: 50_000_000n })]); // $0.05
    const first = await admitBudgets(d, subject());
    expect(first.ok).toBe(true);
    const second = await admitBudgets(d, subject());
    expect(second.ok).toBe(true); // 0.04 < 0.05
    expect((await admitBudgets(d, subject())).ok).toBe(false); // 0.08 ≥ 0.05
    if (!first.ok || !second.ok) return;
    const usage = makeUsage({ inputTotal: 1000, outputTotal: 10 }); // $0.0103
    await settleBudgets(d, first.holds!, { usage, status: 'completed', upstreamModel: 'gpt-big', channelId: 'c1' });
    await settleBudgets(d, second.holds!, { usage, status: 'completed', upstreamModel: 'gpt-big', channelId: 'c1' });
    expect((await admitBudgets(d, subject())).ok).toBe(true); // 0.0206 < 0.05
  });

  it('routes to the downgrade model at the limit instead of refusing, still counting the request', async () => {
    const { deps: d } = deps([budget({ limitNanoUsd: 1n, downgradeModel: 'gpt-small' })]);
    expect((await admitBudgets(d, subject())).ok).toBe(true);
    const downgraded = await admitBudgets(d, subject());
    expect(downgraded.ok).toBe(true);
    if (!downgraded.ok) return;
    expect(downgraded.holds?.model).toBe('gpt-small');
    expect(downgraded.holds?.downgradedFrom).toBe('gpt-big');
    expect(downgraded.uses[0]!.heldNanoUsd).toBe(40_000_000n + 4_000_000n);
  });

  it('applies the budgets of key, user, team, end user and tags, each once', () => {
    const budgets = [
      budget({ budgetId: 'b-key', scope: 'key', scopeId: 'k1' }),
      budget({ budgetId: 'b-user', scope: 'user', scopeId: 'u1' }),
      budget({ budgetId: 'b-team' }),
      budget({ budgetId: 'b-end', scope: 'end_user', scopeId: 'alice' }),
      budget({ budgetId: 'b-tag', scope: 'tag', scopeId: 'feature=search' }),
      budget({ budgetId: 'b-other', scope: 'tag', scopeId: 'feature=chat' }),
    ];
    const { deps: d } = deps(budgets);
    const applied = applicableBudgets(
      d.directory,
      subject({ endUserId: 'alice', tags: ['feature=search', 'env=prod'] }),
    ).map((b) => b.budgetId);
    expect(applied).toEqual(['b-key', 'b-user', 'b-team', 'b-end', 'b-tag']);
  });

  it('is all-or-nothing: a refusing tag budget leaves no hold in the team budget', async () => {
    const { deps: d, ledger } = deps([
      budget({}),
      budget({ budgetId: 'b-tag', scope: 'tag', scopeId: 'feature=search', limitNanoUsd: null, limitTokens: 0 }),
    ]);
    const refused = await admitBudgets(d, subject({ tags: ['feature=search'] }));
    expect(refused.ok).toBe(false);
    const [team] = await ledger.readBudgetUse(
      [{ budgetId: 'bgt_team', windowStartMs: Date.parse('2026-11-27T23:00:00Z'), windowEndMs: BERLIN_MIDNIGHT }],
      T0,
    );
    expect(team!.heldNanoUsd).toBe(0n);
  });

  it('caps requests per day (RPD) of a key and tokens per day of a team on one model, with daily_limit_exceeded', async () => {
    const { deps: d, now } = deps([]);
    const key = { ...KEY, rpd: 2 };
    expect((await admitBudgets(d, subject({ key }))).ok).toBe(true);
    expect((await admitBudgets(d, subject({ key }))).ok).toBe(true);
    const refused = await admitBudgets(d, subject({ key }));
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe('daily_limit_exceeded');
    expect(refused.error.message).toContain('requests per day (RPD) limit of API key k1');
    expect(refused.error.retryAfterMs).toBe(BERLIN_MIDNIGHT - T0);
    now.t = BERLIN_MIDNIGHT + 1;
    expect((await admitBudgets(d, subject({ key }))).ok).toBe(true);

    const team = { ...TEAM, modelLimits: [{ model: 'gpt-big', rpm: null, tpm: null, rpd: null, tpd: 1500 }] };
    expect((await admitBudgets(d, subject({ team }))).ok).toBe(true); // 2000 held, 0 used before
    const capped = await admitBudgets(d, subject({ team }));
    expect(capped.ok).toBe(false);
    if (!capped.ok) expect(capped.error.message).toContain('team t1 on model gpt-big');
    expect((await admitBudgets(d, subject({ team, model: 'gpt-small' }))).ok).toBe(true);
  });

  it('bounds spend across concurrent admissions: the last admitted hold is the most a window can pass its limit by', async () => {
    const ledger = createMemoryBudgetLedger();
    const { deps: d } = deps([budget({ limitNanoUsd: 200_000_000n })], ledger); // $0.20, $0.04 per request
    const results = await Promise.all(Array.from({ length: 50 }, () => admitBudgets(d, subject())));
    const admitted = results.filter((r) => r.ok).length;
    expect(admitted).toBe(5); // 0, 0.04, …, 0.16 < 0.20: five holds, $0.20 ≤ limit + one hold
    for (const r of results) if (!r.ok) expect(r.error.code).toBe('budget_exceeded');
  });

  it('ends the holds of an exchange no channel served at once: nothing counts, the room is free again', async () => {
    const { deps: d, ledger } = deps([budget({ limitNanoUsd: 50_000_000n })]); // $0.05
    const first = await admitBudgets(d, subject());
    const second = await admitBudgets(d, subject());
    expect(first.ok && second.ok).toBe(true);
    expect((await admitBudgets(d, subject())).ok).toBe(false);
    if (!first.ok || !second.ok) return;
    await settleBudgets(d, first.holds!, { status: 'failed' });
    await settleBudgets(d, second.holds!, {}); // refused after its holds: released
    const [use] = await ledger.readBudgetUse(first.holds!.counters, T0);
    expect(use).toMatchObject({ heldNanoUsd: 0n, heldTokens: 0, spentNanoUsd: 0n });
    expect((await admitBudgets(d, subject())).ok).toBe(true);
  });
});
