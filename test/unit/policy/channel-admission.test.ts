/**
 * Channel admission inside the exchange (gateway/exchange/channel-admission.ts): skipping
 * channels at their limit with the shortest wait, the token estimate computed once, settlement
 * of served attempts, and fail-open when the limiter is unreachable.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import { makeUsage } from '../../../gateway/canonical/usage.ts';
import { allChannelsLimitedError, ChannelAdmission } from '../../../gateway/exchange/channel-admission.ts';
import type { ExchangeDeps, ExchangeInput } from '../../../gateway/exchange/exchange-types.ts';
import type { Channel } from '../../../gateway/routing/channel.ts';
import { channelLimitScope, type ChannelLimits } from '../../../gateway/policy/channel-limits.ts';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';
import type { RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';

const channels = ['a', 'b', 'c'].map((id) => ({ id }) as Channel);
const input = {
  requestId: 'req_1',
  request: { model: 'm', messages: [], stream: false } as unknown as CanonicalRequest,
} as ExchangeInput;

function setup(limiter: RateLimiter, limits: Record<string, [number | null, number | null]>) {
  const logs: string[] = [];
  let estimates = 0;
  const channelLimits: ChannelLimits = {
    limiter,
    scopeFor: (id) => (limits[id] ? channelLimitScope(id, ...limits[id]) : undefined),
    estimatedTokens: () => ((estimates += 1), 100),
  };
  const log = {
    debug: (_: unknown, msg: string) => logs.push(`debug ${msg}`),
    warn: (_: unknown, msg: string) => logs.push(`warn ${msg}`),
  };
  const deps = { channelLimits, log } as unknown as ExchangeDeps;
  return { gates: new ChannelAdmission(deps, input), logs, estimates: () => estimates };
}

describe('ChannelAdmission', () => {
  it('skips channels at their limit and reports the shortest wait when all are', async () => {
    const limiter = createMemoryRateLimiter();
    const { gates, logs, estimates } = setup(limiter, { a: [1, null], b: [2, 1_000], c: [null, 150] });
    // An RPM-only channel has no token limit: nothing to reserve, no tokenizer estimate.
    expect((await gates.next(channels, 0)).admitted).toMatchObject({
      channel: { id: 'a' },
      index: 0,
      reservedTokens: 0,
      scope: { scope: 'channel:a' },
    });
    expect((await gates.next(channels, 0)).admitted).toMatchObject({ channel: { id: 'b' }, index: 1 });
    expect((await gates.next(channels, 0)).admitted).toMatchObject({ channel: { id: 'b' }, index: 1 });
    expect((await gates.next(channels, 0)).admitted).toMatchObject({ channel: { id: 'c' }, index: 2 });
    const none = await gates.next(channels, 0);
    expect(none.admitted).toBeUndefined();
    // a waits ~60 s, b ~30 s (rpm 2), c ~20 s (150 tpm: 100 + 100 − 150 = 50 tokens × 400 ms)
    expect('retryAfterMs' in none && none.retryAfterMs).toBeGreaterThan(19_000);
    expect('retryAfterMs' in none && none.retryAfterMs).toBeLessThanOrEqual(20_000);
    expect(logs.filter((l) => l === 'debug channel at its limit: skipped').length).toBeGreaterThan(0);
    expect(estimates()).toBe(1);
    expect(allChannelsLimitedError(20_000)).toMatchObject({ kind: 'rate-limited', status: 429, retryAfterMs: 20_000 });
  });

  it('settles a served attempt to its usage and a failed one to zero', async () => {
    const limiter = createMemoryRateLimiter();
    const { gates } = setup(limiter, { a: [null, 250] });
    const first = (await gates.next(channels, 0)).admitted;
    if (!first) throw new Error('expected a channel');
    gates.settle(first, {
      kind: 'served',
      status: 'completed',
      httpStatus: 200,
      ttfbMs: 1,
      usage: makeUsage({ inputTotal: 5, outputTotal: 5 }),
    });
    const second = (await gates.next(channels, 0)).admitted;
    expect(second?.channel.id).toBe('a'); // 10 + 100 ≤ 250
    if (second) gates.settle(second, undefined);
    const third = (await gates.next(channels, 0)).admitted;
    expect(third?.channel.id).toBe('a'); // 10 + 0 + 100 ≤ 250
    expect((await gates.next(channels, 0)).admitted?.channel.id).toBe('a'); // 110 + 100 ≤ 250
    expect((await gates.next(channels, 0)).admitted?.channel.id).toBe('b'); // 210 + 100 > 250
  });

  it('uses a channel without reservation when the limiter is unreachable (fail-open)', async () => {
    const broken = {
      admit: () => Promise.reject(new Error('ECONNREFUSED')),
      settle: () => Promise.reject(new Error('x')),
      close: async () => {},
    } as RateLimiter;
    const { gates, logs } = setup(broken, { a: [1, 1] });
    expect((await gates.next(channels, 0)).admitted).toEqual({ channel: channels[0], index: 0, reservedTokens: 0 });
    expect(logs).toContain('warn channel limiter unavailable: channel used without reservation');
  });
});
