/**
 * Admission policy (gateway/policy/admit-request.ts) over the real memory limiter and memory
 * state store: quotas before limits, user and key limits charged together, format of the
 * `x-ratelimit-*` / `retry-after` headers, settlement and the token estimate.
 */
import type { TeamRecord } from '../../../schemas/control-plane/control-plane-records.ts';
import { describe, expect, it } from 'vitest';
import { makeUsage } from '../../../gateway/canonical/usage.ts';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import type { KeyRecord, UserRecord } from '../../../gateway/control-plane/control-plane-view.ts';
import {
  actualTokensOf,
  admitRequest,
  formatNanoUsd,
  requestLimitScopes,
  settleRequest,
  type AdmissionDeps,
} from '../../../gateway/policy/admit-request.ts';
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  estimateAdmissionTokens,
} from '../../../gateway/policy/estimate-admission-tokens.ts';
import { formatResetDuration, rateLimitHeaders } from '../../../gateway/policy/rate-limit-headers.ts';
import { estimateInputTokens } from '../../../gateway/tokenize/estimate-tokens.ts';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import type { LimitScope, RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';

const T0 = 1_700_000_000_000;
const USD = 1_000_000_000n;

function keyRecord(over: Partial<KeyRecord> = {}): KeyRecord {
  return {
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
    teamId: null,
    tags: [],
    rpd: null,
    tpd: null,
    modelLimits: [],
    ...over,
  };
}

function userRecord(over: Partial<UserRecord> = {}): UserRecord {
  return {
    userId: 'u1',
    name: 'alice',
    role: 'user',
    rpm: null,
    tpm: null,
    quotaNanoUsd: null,
    disabled: false,
    createdAt: 0,
    login: null,
    passwordHash: null,
    ...over,
  };
}

/** Deps over real memory adapters, with a count of limiter admissions (to prove ordering). */
function makeDeps(): AdmissionDeps & {
  admits: () => number;
  store: ReturnType<typeof createMemoryStateStore>;
  limiter: RateLimiter;
} {
  const limiter = createMemoryRateLimiter({ clock: () => T0 });
  const store = createMemoryStateStore();
  let admits = 0;
  const counting: RateLimiter = { ...limiter, admit: (...args) => ((admits += 1), limiter.admit(...args)) };
  return { limiter: counting, spend: store, store, admits: () => admits };
}

describe('admitRequest: quotas', () => {
  it('refuses a key at its quota with quota-exceeded, not retryable, before touching limits', async () => {
    const deps = makeDeps();
    await deps.store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '1' }, 'k1', 'u1', 5n * USD);
    const result = await admitRequest(deps, {
      key: keyRecord({ quotaNanoUsd: 5n * USD, rpm: 1 }),
      user: userRecord(),
      estimatedTokens: 10,
      now: T0,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({
      kind: 'quota-exceeded',
      status: 429,
      retryable: false,
      retryAfterMs: undefined,
    });
    expect(result.error.message).toContain('$5.00 of $5.00');
    expect(result.headers).toEqual({});
    expect(deps.admits()).toBe(0);
  });

  it('refuses when the user over all keys is at the user quota; below both quotas admits', async () => {
    const deps = makeDeps();
    await deps.store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '2' }, 'other-key', 'u1', 2n * USD);
    await deps.store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '3' }, 'k1', 'u1', USD / 2n);
    const key = keyRecord({ quotaNanoUsd: USD });
    expect(
      (await admitRequest(deps, { key, user: userRecord({ quotaNanoUsd: 3n * USD }), estimatedTokens: 1, now: T0 })).ok,
    ).toBe(true);
    const refused = await admitRequest(deps, {
      key,
      user: userRecord({ quotaNanoUsd: 2n * USD + USD / 2n }),
      estimatedTokens: 1,
      now: T0,
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toMatch(/User 'alice'.*\$2\.50 of \$2\.50/);
  });

  it('formats nano-USD as dollars', () => {
    expect(formatNanoUsd(0n)).toBe('$0.00');
    expect(formatNanoUsd(1_234_500_000n)).toBe('$1.2345');
    expect(formatNanoUsd(1n)).toBe('$0.000000001');
  });
});

describe('admitRequest: limits', () => {
  it('admits without the limiter when nothing is limited', async () => {
    const deps = makeDeps();
    const result = await admitRequest(deps, { key: keyRecord(), user: userRecord(), estimatedTokens: 100 });
    expect(result).toEqual({ ok: true, scopes: [], reservedTokens: 0, headers: {}, unchecked: [] });
    expect(deps.admits()).toBe(0);
  });

  it('charges user and key together and reports the tightest scope in the headers', async () => {
    const deps = makeDeps();
    const ctx = {
      key: keyRecord({ rpm: 10, tpm: 10_000 }),
      user: userRecord({ rpm: 2, tpm: 100_000 }),
      estimatedTokens: 3_000,
      now: T0,
    };
    const first = await admitRequest(deps, ctx);
    expect(first).toEqual({
      ok: true,
      scopes: [
        { scope: 'user:u1', rpm: 2, tpm: 100_000 },
        { scope: 'key:k1', rpm: 10, tpm: 10_000 },
      ],
      reservedTokens: 3_000,
      headers: {
        'x-ratelimit-limit-requests': '2',
        'x-ratelimit-remaining-requests': '1',
        'x-ratelimit-reset-requests': '30s',
        'x-ratelimit-limit-tokens': '10000',
        'x-ratelimit-remaining-tokens': '7000',
        'x-ratelimit-reset-tokens': '18s',
      },
      unchecked: [],
    });
    expect((await admitRequest(deps, ctx)).ok).toBe(true);
    const refused = await admitRequest(deps, { ...ctx, now: T0 + 1_500 });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error).toMatchObject({ kind: 'rate-limited', status: 429, retryable: true, retryAfterMs: 28_500 });
    expect(refused.error.message).toBe(
      'Rate limit reached for user u1 on requests per minute (RPM): limit 2, remaining 0. Please try again in 28.5s.',
    );
    expect(refused.headers).toMatchObject({
      'retry-after': '29',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '58.5s',
    });
    // the refused admission charged nothing: 2 of the key's 10 were used, this one leaves 7
    const keyOnly = await admitRequest(deps, { ...ctx, user: undefined, now: T0 + 1_500 });
    expect(keyOnly.ok && keyOnly.headers['x-ratelimit-remaining-requests']).toBe('7');
  });

  it('refuses on tokens with the key named, and a request over the whole TPM as never admissible', async () => {
    const deps = makeDeps();
    const key = keyRecord({ tpm: 1_000 });
    expect((await admitRequest(deps, { key, user: undefined, estimatedTokens: 900, now: T0 })).ok).toBe(true);
    const refused = await admitRequest(deps, { key, user: undefined, estimatedTokens: 200, now: T0 });
    expect(!refused.ok && refused.error).toMatchObject({ kind: 'rate-limited', retryAfterMs: 6_000, retryable: true });
    expect(!refused.ok && refused.error.message).toContain(
      'API key k1 on tokens per minute (TPM): limit 1000, remaining 100',
    );
    const tooLarge = await admitRequest(deps, { key, user: undefined, estimatedTokens: 5_000, now: T0 });
    expect(!tooLarge.ok && tooLarge.error).toMatchObject({
      kind: 'rate-limited',
      retryAfterMs: 60_000,
      retryable: false,
    });
    expect(!tooLarge.ok && tooLarge.error.message).toContain('needs an estimated 5000 tokens');
    expect(tooLarge.headers['retry-after']).toBe('60');
  });

  it('checks the quota before the limits (an over-quota key at its limit gets quota-exceeded)', async () => {
    const deps = makeDeps();
    const key = keyRecord({ rpm: 1, quotaNanoUsd: USD });
    expect((await admitRequest(deps, { key, user: undefined, estimatedTokens: 1, now: T0 })).ok).toBe(true);
    await deps.store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '4' }, 'k1', null, USD);
    const result = await admitRequest(deps, { key, user: undefined, estimatedTokens: 1, now: T0 });
    expect(!result.ok && result.error.kind).toBe('quota-exceeded');
    expect(deps.admits()).toBe(1);
  });

  it('leaves out unlimited scopes and names them user first', () => {
    expect(requestLimitScopes(keyRecord({ tpm: 5 }), userRecord())).toEqual([{ scope: 'key:k1', rpm: null, tpm: 5 }]);
    expect(requestLimitScopes(keyRecord(), userRecord({ rpm: 3 }))).toEqual([{ scope: 'user:u1', rpm: 3, tpm: null }]);
  });
});

describe('settleRequest', () => {
  it('settles the reservation to input + output tokens, releasing the rest', async () => {
    const deps = makeDeps();
    const ctx = { key: keyRecord({ tpm: 1_000 }), user: undefined, estimatedTokens: 800, now: T0 };
    const admitted = await admitRequest(deps, ctx);
    if (!admitted.ok) throw new Error('expected admission');
    await settleRequest(
      deps,
      admitted,
      { status: 'completed', usage: makeUsage({ inputTotal: 50, outputTotal: 50 }) },
      T0,
    );
    const next = await admitRequest(deps, ctx);
    expect(next.ok && next.headers['x-ratelimit-remaining-tokens']).toBe('100'); // 1000 − 100 − 800
  });

  it('releases everything when the exchange failed before any output', async () => {
    const deps = makeDeps();
    const ctx = { key: keyRecord({ tpm: 1_000 }), user: undefined, estimatedTokens: 800, now: T0 };
    const admitted = await admitRequest(deps, ctx);
    if (!admitted.ok) throw new Error('expected admission');
    await settleRequest(deps, admitted, { status: 'failed' }, T0);
    const next = await admitRequest(deps, ctx);
    expect(next.ok && next.headers['x-ratelimit-remaining-tokens']).toBe('200');
  });

  it('counts actual tokens: none without usage or output on failure, partial output counts', () => {
    expect(actualTokensOf(undefined)).toBe(0);
    expect(actualTokensOf({ status: 'failed', usage: makeUsage({ inputTotal: 40 }) })).toBe(0);
    expect(
      actualTokensOf({ status: 'cancelled', usage: makeUsage({ inputTotal: 40, outputTotal: 2, source: 'partial' }) }),
    ).toBe(42);
    expect(actualTokensOf({ status: 'completed', usage: makeUsage({ inputTotal: 40 }) })).toBe(40);
  });

  it('does nothing when no scope has a TPM limit', async () => {
    let settles = 0;
    const limiter = { settle: async () => void (settles += 1) } as unknown as RateLimiter;
    const scopes: LimitScope[] = [{ scope: 'key:k1', rpm: 5, tpm: null }];
    await settleRequest(
      { limiter },
      { scopes, reservedTokens: 10 },
      { status: 'completed', usage: makeUsage({ inputTotal: 1 }) },
    );
    expect(settles).toBe(0);
  });
});

describe('headers and estimates', () => {
  it('formats reset durations like OpenAI (Go durations)', () => {
    expect([0, 20, 999.2, 1_000, 1_500, 59_999, 60_000, 360_000, 3_723_004].map(formatResetDuration)).toEqual([
      '0s',
      '20ms',
      '1s',
      '1s',
      '1.5s',
      '59.999s',
      '1m0s',
      '6m0s',
      '1h2m3.004s',
    ]);
  });

  it('picks the scope with the fewest remaining units per kind', () => {
    const headers = rateLimitHeaders(
      [
        { scope: 'user:u', kind: 'requests', limit: 100, remaining: 3, resetMs: 58_000 },
        { scope: 'key:k', kind: 'requests', limit: 5, remaining: 4, resetMs: 12_000 },
      ],
      1_001,
    );
    expect(headers).toEqual({
      'x-ratelimit-limit-requests': '100',
      'x-ratelimit-remaining-requests': '3',
      'x-ratelimit-reset-requests': '58s',
      'retry-after': '2',
    });
  });

  it('estimates input plus max output (default 4096)', () => {
    const request = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
      stream: false,
    } as unknown as CanonicalRequest;
    const input = estimateInputTokens(request);
    expect(input).toBeGreaterThan(0);
    expect(estimateAdmissionTokens(request)).toBe(input + DEFAULT_MAX_OUTPUT_TOKENS);
    expect(estimateAdmissionTokens({ ...request, maxOutputTokens: 10 }, 99)).toBe(input + 10);
    expect(estimateAdmissionTokens(request, 99)).toBe(input + 99);
  });
});

describe('admitRequest: team and per-model limits', () => {
  const team: TeamRecord = {
    teamId: 't1',
    name: 'Search',
    rpm: 2,
    tpm: null,
    rpd: null,
    tpd: null,
    models: null,
    modelLimits: [{ model: 'big', rpm: 1, tpm: null, rpd: null, tpd: null }],
    tags: [],
    disabled: false,
    members: new Map(),
    createdAt: 0,
  };

  it('orders the scopes user, team, key, then the team and the key on the model', () => {
    const key = keyRecord({ rpm: 5, modelLimits: [{ model: 'big', rpm: null, tpm: 100, rpd: null, tpd: null }] });
    expect(requestLimitScopes(key, userRecord({ rpm: 9 }), team, 'big').map((s) => s.scope)).toEqual([
      'user:u1',
      'team:t1',
      'key:k1',
      'team:t1/model:big',
      'key:k1/model:big',
    ]);
    expect(requestLimitScopes(key, undefined, team, 'small').map((s) => s.scope)).toEqual(['team:t1', 'key:k1']);
  });

  it("refuses the team's second request on the model as the team's RPM on that model, and its third anywhere as team_rpm", async () => {
    const deps = makeDeps();
    const ctx = { key: keyRecord(), user: undefined, team, estimatedTokens: 10, now: T0 };
    expect((await admitRequest(deps, { ...ctx, model: 'big' })).ok).toBe(true);
    const onModel = await admitRequest(deps, { ...ctx, model: 'big' });
    expect(onModel.ok).toBe(false);
    if (!onModel.ok) {
      expect(onModel.limit).toBe('team_rpm');
      expect(onModel.error.message).toContain('Rate limit reached for team t1 on model big on requests per minute');
    }
    expect((await admitRequest(deps, { ...ctx, model: 'small' })).ok).toBe(true);
    const third = await admitRequest(deps, { ...ctx, model: 'small' });
    expect(third.ok).toBe(false);
    if (!third.ok) expect(third.error.message).toContain('Rate limit reached for team t1 on requests per minute');
  });
});
