import { afterEach, describe, expect, it, vi } from 'vitest';
import { configFileSchema } from '../../../gateway/config/config-schema.ts';
import { resolveChannel } from '../../../gateway/routing/channel.ts';
import type { ChannelHealthSource } from '../../../gateway/routing/channel-health-source.ts';
import { ChannelHealthView } from '../../../gateway/routing/channel-health-view.ts';
import { ChannelRouter } from '../../../gateway/routing/channel-router.ts';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import type { ChannelHealth, StateStore } from '../../../schemas/state-store/state-store.ts';

function seeded(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function router(channels: unknown[], random: () => number = Math.random, health?: ChannelHealthSource): ChannelRouter {
  return new ChannelRouter(
    configFileSchema.parse({ channels }).channels.map((c) => resolveChannel(c)),
    random,
    health,
  );
}

function source(cooling: string[], errorRates: Record<string, number> = {}): ChannelHealthSource {
  return { isCoolingDown: (id) => cooling.includes(id), errorRate: (id) => errorRates[id] ?? 0 };
}

const FOUR = [
  { id: 'a', provider: 'deepseek', models: ['m'], priority: 5 },
  { id: 'b', provider: 'deepseek', models: ['m'], priority: 5 },
  { id: 'c', provider: 'deepseek', models: ['m'], priority: 5 },
  { id: 'd', provider: 'deepseek', models: ['m'], priority: 0 },
];

function firstShare(r: ChannelRouter, id: string, draws = 4000): number {
  return Array.from({ length: draws }, () => r.candidatesFor('m')[0]?.id).filter((x) => x === id).length / draws;
}

describe('ChannelRouter with channel health', () => {
  it('moves cooling channels to the end, after lower tiers, keeping their tier order', () => {
    const r = router(FOUR, seeded(1), source(['b', 'd']));
    for (let i = 0; i < 200; i++) {
      const ids = r.candidatesFor('m').map((c) => c.id);
      expect(ids.slice(2)).toEqual(['b', 'd']);
      expect(new Set(ids.slice(0, 2))).toEqual(new Set(['a', 'c']));
    }
  });

  it('never drops channels: all cooling still gives the full order', () => {
    const r = router(FOUR, seeded(2), source(['a', 'b', 'c', 'd']));
    const ids = r.candidatesFor('m').map((c) => c.id);
    expect(ids).toHaveLength(4);
    expect(ids[3]).toBe('d');
  });

  it('de-weights by error rate (weight × max(0.05, 1 − errorRate))', () => {
    const pair = [
      { id: 'x', provider: 'deepseek', models: ['m'] },
      { id: 'y', provider: 'deepseek', models: ['m'] },
    ];
    expect(firstShare(router(pair, seeded(3)), 'x')).toBeCloseTo(0.5, 1);
    const quarter = firstShare(router(pair, seeded(3), source([], { x: 0.75 })), 'x'); // 0.25 / 1.25 = 0.2
    expect(quarter).toBeGreaterThan(0.17);
    expect(quarter).toBeLessThan(0.23);
    const floor = firstShare(router(pair, seeded(3), source([], { x: 1, y: 0.5 })), 'x'); // 0.05 / 0.55 ≈ 0.09
    expect(floor).toBeGreaterThan(0.07);
    expect(floor).toBeLessThan(0.11);
  });

  it('without a source (or with a clean one) orders exactly as before', () => {
    const plain = router(FOUR, seeded(9));
    const clean = router(FOUR, seeded(9), source([]));
    for (let i = 0; i < 50; i++)
      expect(clean.candidatesFor('m').map((c) => c.id)).toEqual(plain.candidatesFor('m').map((c) => c.id));
    const later = router(FOUR, seeded(9));
    later.setHealthSource(source(['a', 'b', 'c']));
    expect(later.candidatesFor('m')[0]?.id).toBe('d');
    expect(later.candidatesFor('m', source([]))[0]?.id).not.toBe('d');
    later.setHealthSource(undefined);
    expect(later.candidatesFor('m')[3]?.id).toBe('d');
  });
});

describe('ChannelHealthView', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('opens the local breaker after failureThreshold consecutive failures and closes it after the cooldown', () => {
    let now = 1_000;
    const view = new ChannelHealthView({
      store: createMemoryStateStore(),
      channelIds: ['a'],
      failureThreshold: 3,
      cooldownMs: 5_000,
      clock: () => now,
    });
    view.reportAttempt('a', false);
    view.reportAttempt('a', false);
    view.reportAttempt('a', true);
    view.reportAttempt('a', false);
    view.reportAttempt('a', false);
    expect(view.isCoolingDown('a')).toBe(false);
    view.onAttempt('a', { ok: false });
    expect(view.isCoolingDown('a')).toBe(true);
    expect(view.localOpenUntil('a')).toBe(6_000);
    now = 5_999;
    expect(view.isCoolingDown('a')).toBe(true);
    now = 6_000;
    expect(view.isCoolingDown('a')).toBe(false);
    view.reportAttempt('a', false); // half-open: one more failure re-opens it
    expect(view.localOpenUntil('a')).toBe(11_000);
    view.reportAttempt('a', true); // a success closes it
    expect(view.isCoolingDown('a')).toBe(false);
  });

  it('opens at once on a Retry-After, and a success does not close that early', () => {
    let now = 0;
    const view = new ChannelHealthView({ store: createMemoryStateStore(), channelIds: ['a'], clock: () => now });
    view.onAttempt('a', { ok: false, retryAfterMs: 2_000 });
    view.reportAttempt('a', true);
    expect(view.isCoolingDown('a')).toBe(true);
    now = 2_000;
    expect(view.isCoolingDown('a')).toBe(false);
  });

  it('routes on the shared snapshot: a channel the consumer put in cooldown goes last until it ends', async () => {
    const store = createMemoryStateStore();
    let now = 1_700_000_000_000;
    for (let i = 0; i < 3; i++)
      await store.recordChannelObservation({
        eventId: `f${i}`,
        position: { topic: 'tollgate.requests', partition: 0, offset: String(1 + i) },
        channelId: 'a',
        at: now + i,
        ok: false,
        latencyMs: 5,
      });
    await store.recordChannelObservation({
      eventId: 'ok-b',
      position: { topic: 'tollgate.requests', partition: 0, offset: String(4) },
      channelId: 'b',
      at: now,
      ok: true,
      latencyMs: 5,
    });
    const view = new ChannelHealthView({ store, channelIds: ['a', 'b', 'c', 'd'], clock: () => now });
    const r = router(FOUR, seeded(4), view);
    expect(view.isCoolingDown('a')).toBe(false); // nothing read yet
    expect(await view.refresh()).toBe(true);
    expect(view.isCoolingDown('a')).toBe(true);
    expect(view.errorRate('a')).toBe(1);
    expect(view.sharedHealth('b')).toMatchObject({ windowCount: 1, errorRate: 0 });
    expect(
      r
        .candidatesFor('m')
        .map((c) => c.id)
        .at(-1),
    ).toBe('a');
    now += 2 + 30_000; // the cooldown ends without another refresh
    expect(view.isCoolingDown('a')).toBe(false);
    expect(
      r
        .candidatesFor('m')
        .map((c) => c.id)
        .at(-1),
    ).toBe('d');
  });

  it('keeps the last snapshot when a refresh fails, logs once per outage and recovers', async () => {
    const healthy: ChannelHealth = {
      channelId: 'a',
      errorRate: 0.5,
      windowCount: 2,
      latencyEwmaMs: 10,
      totalLatencyEwmaMs: 40,
      consecutiveFailures: 0,
      cooldownUntil: 0,
    };
    let fail = false;
    const store = {
      getChannelHealth: async () => {
        if (fail) throw new Error('ECONNREFUSED');
        return [healthy];
      },
    } as unknown as StateStore;
    const log = { warn: vi.fn(), info: vi.fn() };
    const view = new ChannelHealthView({ store, channelIds: ['a'], log });
    expect(await view.refresh()).toBe(true);
    fail = true;
    expect(await view.refresh()).toBe(false);
    expect(await view.refresh()).toBe(false);
    expect(view.errorRate('a')).toBe(0.5);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0]?.[0]).toEqual({ reason: 'ECONNREFUSED' });
    fail = false;
    expect(await view.refresh()).toBe(true);
    expect(log.info).toHaveBeenCalledTimes(1);
  });

  it('refreshes in the background every refreshMs until stopped', async () => {
    vi.useFakeTimers();
    const getChannelHealth = vi.fn(async () => [] as ChannelHealth[]);
    const view = new ChannelHealthView({
      store: { getChannelHealth } as unknown as StateStore,
      channelIds: ['a'],
      refreshMs: 1_000,
    });
    expect(await view.start()).toBe(true);
    expect(getChannelHealth).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(getChannelHealth).toHaveBeenCalledTimes(4);
    view.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(getChannelHealth).toHaveBeenCalledTimes(4);
  });
});
