/**
 * Failover bounds (gateway/routing/failover-policy.ts) and the channel-limits factory
 * (gateway/policy/channel-limits.ts).
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import { createChannelLimits } from '../../../gateway/policy/channel-limits.ts';
import {
  attemptCap,
  DEFAULT_MAX_ATTEMPTS,
  failoverWaitMs,
  waitForFailover,
} from '../../../gateway/routing/failover-policy.ts';
import { estimateInputTokens } from '../../../gateway/tokenize/estimate-tokens.ts';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';

describe('failover policy', () => {
  it('waits only for Retry-Afters in (0, 1000] ms', () => {
    expect(
      [undefined, 0, 1, 400, 1_000, 1_001, 30_000, Number.NaN].map((retryAfterMs) => failoverWaitMs({ retryAfterMs })),
    ).toEqual([0, 0, 1, 400, 1_000, 0, 0, 0]);
  });

  it('caps attempts at a positive integer, default 4', () => {
    expect(DEFAULT_MAX_ATTEMPTS).toBe(4);
    expect([undefined, 0, -1, 2.5, 1, 7].map(attemptCap)).toEqual([4, 4, 4, 4, 1, 7]);
  });

  it('waits the given time, and stops at once when the client goes away', async () => {
    const started = Date.now();
    await waitForFailover(120, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    const abort = new AbortController();
    const cut = Date.now();
    setTimeout(() => abort.abort(), 20);
    await waitForFailover(5_000, abort.signal);
    expect(Date.now() - cut).toBeLessThan(1_000);
  });
});

describe('createChannelLimits', () => {
  it('scopes limited channels as channel:<id> and reserves input + max output tokens', () => {
    const limits = createChannelLimits({
      limiter: createMemoryRateLimiter(),
      limitsOf: (id) => ({ a: { rpm: 5, tpm: null }, b: { rpm: null, tpm: null } })[id],
      defaultMaxOutput: 1_000,
    });
    expect(limits.scopeFor('a')).toEqual({ scope: 'channel:a', rpm: 5, tpm: null });
    expect(limits.scopeFor('b')).toBeUndefined();
    expect(limits.scopeFor('unknown')).toBeUndefined();
    const request = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stream: false,
    } as unknown as CanonicalRequest;
    expect(limits.estimatedTokens(request)).toBe(estimateInputTokens(request) + 1_000);
  });
});
