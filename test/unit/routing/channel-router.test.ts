import { describe, expect, it } from 'vitest';
import { configFileSchema } from '../../../gateway/config/config-schema.ts';
import { resolveChannel, upstreamModelFor } from '../../../gateway/routing/channel.ts';
import { ChannelRouter, weightedOrder } from '../../../gateway/routing/channel-router.ts';

function router(channels: unknown[], random: () => number = Math.random): ChannelRouter {
  return new ChannelRouter(
    configFileSchema.parse({ channels }).channels.map((c) => resolveChannel(c)),
    random,
  );
}

describe('ChannelRouter', () => {
  it('orders tiers by descending priority and skips disabled channels', () => {
    const r = router([
      { id: 'low', provider: 'deepseek', models: ['m'], priority: 0 },
      { id: 'high', provider: 'deepseek', models: ['m'], priority: 5 },
      { id: 'off', provider: 'deepseek', models: ['m'], priority: 9, enabled: false },
      { id: 'mid', provider: 'deepseek', models: ['m'], priority: 2 },
    ]);
    expect(r.candidatesFor('m').map((c) => c.id)).toEqual(['high', 'mid', 'low']);
    expect(r.candidatesFor('other')).toEqual([]);
  });

  it('gives a model served by one channel that channel, whatever the strategy, health or pin, drawing no random number', () => {
    const r = router([{ id: 'solo', provider: 'deepseek', models: ['m'] }], () => {
      throw new Error('no random number is needed to order one channel');
    });
    const cooling = { isCoolingDown: () => true, errorRate: () => 1 };
    for (const strategy of ['weighted', 'latency', 'least-busy', 'cost'] as const)
      expect(r.candidatesFor('m', cooling, { strategy, preferredChannelId: 'other' }).map((c) => c.id)).toEqual([
        'solo',
      ]);
    expect(r.candidatesFor('m').map((c) => c.id)).toEqual(['solo']);
  });

  it('tells whether a model has an upstream account to choose: two enabled channels, or one with a key pool', () => {
    const r = router([
      { id: 'solo', provider: 'deepseek', models: ['solo'] },
      { id: 'a', provider: 'deepseek', models: ['pair'] },
      { id: 'b', provider: 'deepseek', models: ['pair'] },
      { id: 'c', provider: 'deepseek', models: ['half'] },
      { id: 'd', provider: 'deepseek', models: ['half'], enabled: false },
      {
        id: 'pool',
        provider: 'deepseek',
        models: ['pooled'],
        credentials: [
          { id: 'k1', apiKey: 'sk-1' },
          { id: 'k2', apiKey: 'sk-2' },
        ],
      },
    ]);
    expect(['solo', 'pair', 'half', 'pooled', 'none'].map((m) => r.hasAccountChoice(m))).toEqual([
      false,
      true,
      false,
      true,
      false,
    ]);
  });

  it('serves modelMap aliases and maps them to the upstream name', () => {
    const r = router([
      {
        id: 'a',
        provider: 'deepseek',
        models: ['deepseek-v4-flash'],
        modelMap: { 'claude-sonnet-4-5': 'deepseek-v4-flash' },
      },
    ]);
    expect(r.listModels()).toEqual(['claude-sonnet-4-5', 'deepseek-v4-flash']);
    const [channel] = r.candidatesFor('claude-sonnet-4-5');
    expect(channel && upstreamModelFor(channel, 'claude-sonnet-4-5')).toBe('deepseek-v4-flash');
    expect(channel?.baseUrl).toBe('https://api.deepseek.com');
  });

  it('chooses within a tier in proportion to weight', () => {
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const r = router(
      [
        { id: 'heavy', provider: 'deepseek', models: ['m'], weight: 3 },
        { id: 'light', provider: 'deepseek', models: ['m'], weight: 1 },
      ],
      random,
    );
    const firsts = Array.from({ length: 4000 }, () => r.candidatesFor('m')[0]?.id);
    const heavyShare = firsts.filter((id) => id === 'heavy').length / firsts.length;
    expect(heavyShare).toBeGreaterThan(0.7);
    expect(heavyShare).toBeLessThan(0.8);
    expect(new Set(r.candidatesFor('m').map((c) => c.id)).size).toBe(2);
  });

  it('weightedOrder keeps every channel exactly once', () => {
    const items = [{ weight: 1 }, { weight: 2 }, { weight: 0.5 }];
    expect(weightedOrder(items, () => 0.5).sort((a, b) => a.weight - b.weight)).toEqual([
      { weight: 0.5 },
      { weight: 1 },
      { weight: 2 },
    ]);
  });
});
