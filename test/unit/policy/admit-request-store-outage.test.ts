/**
 * Admission while the state store cannot answer (gateway/policy/admit-request.ts): each limit
 * kind follows its outage policy — `open` skips the check and names it in `unchecked`, `closed`
 * refuses with a retryable 503 and `retry-after` — and other store failures still propagate.
 */
import { describe, expect, it } from 'vitest';
import type { KeyRecord } from '../../../gateway/control-plane/control-plane-view.ts';
import { admitRequest, type AdmissionDeps } from '../../../gateway/policy/admit-request.ts';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import type { RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';
import { StateStoreUnavailableError } from '../../../schemas/state-store/state-store-unavailable.ts';

const KEY: KeyRecord = {
  keyId: 'k1',
  publicId: 'abcdefghijkl',
  digest: 'd',
  name: 'k',
  userId: null,
  rpm: 1,
  tpm: null,
  quotaNanoUsd: 1_000_000_000n,
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
};

const unavailable = (store: string) => async (): Promise<never> => {
  throw new StateStoreUnavailableError(store, 'circuit-open', 700);
};

function deps(down: { spend?: boolean; limiter?: boolean }, policy?: AdmissionDeps['onStoreOutage']): AdmissionDeps {
  const memory = createMemoryRateLimiter();
  const limiter: RateLimiter = down.limiter ? { ...memory, admit: unavailable('rate limiter (Redis)') } : memory;
  const store = createMemoryStateStore();
  return {
    limiter,
    spend: down.spend ? { getSpend: unavailable('state store (Redis)') } : store,
    ...(policy ? { onStoreOutage: policy } : {}),
  };
}

describe('admitRequest while the state store is unavailable', () => {
  it('fails open by default for both kinds, naming the checks it skipped and reserving nothing', async () => {
    const result = await admitRequest(deps({ spend: true, limiter: true }), {
      key: KEY,
      user: undefined,
      estimatedTokens: 10,
    });
    expect(result).toMatchObject({ ok: true, scopes: [], reservedTokens: 0, unchecked: ['quotas', 'limits'] });
  });

  it('refuses with 503, retry-after and a message naming what is down under a closed policy', async () => {
    const limits = await admitRequest(deps({ limiter: true }, { limits: 'closed', quotas: 'open' }), {
      key: KEY,
      user: undefined,
      estimatedTokens: 10,
    });
    expect(limits.ok).toBe(false);
    if (limits.ok) return;
    expect(limits.error).toMatchObject({
      status: 503,
      retryable: true,
      code: 'limits_unavailable',
      retryAfterMs: 1000,
    });
    expect(limits.error.message).toMatch(
      /^Rate limits cannot be checked right now: the rate limiter \(Redis\) is unreachable/,
    );
    expect(limits.headers).toEqual({ 'retry-after': '1' });
    const quotas = await admitRequest(deps({ spend: true }, { limits: 'open', quotas: 'closed' }), {
      key: KEY,
      user: undefined,
      estimatedTokens: 10,
    });
    expect(quotas.ok).toBe(false);
    if (!quotas.ok)
      expect(quotas.error.message).toMatch(/^Spend quotas cannot be checked right now: the state store \(Redis\)/);
  });

  it('applies each kind its own policy: quotas skipped, limits still enforced', async () => {
    const d = deps({ spend: true }, { limits: 'closed', quotas: 'open' });
    expect(await admitRequest(d, { key: KEY, user: undefined, estimatedTokens: 1 })).toMatchObject({
      ok: true,
      unchecked: ['quotas'],
    });
    expect(await admitRequest(d, { key: KEY, user: undefined, estimatedTokens: 1 })).toMatchObject({
      ok: false,
      error: { kind: 'rate-limited' },
    });
  });

  it('lets other store failures propagate (a bug is not an outage)', async () => {
    const broken: AdmissionDeps = {
      limiter: createMemoryRateLimiter(),
      spend: { getSpend: async () => Promise.reject(new Error('boom')) },
    };
    await expect(admitRequest(broken, { key: KEY, user: undefined, estimatedTokens: 1 })).rejects.toThrow('boom');
  });
});
