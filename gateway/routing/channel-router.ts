/**
 * Chooses channels for a model: enabled channels serving it, highest priority tier first,
 * weighted random order within a tier. The order is the failover order.
 */
import type { Channel } from './channel.ts';

/** Random source in [0, 1); injectable for tests. */
export type RandomSource = () => number;

/** Orders `channels` by weighted random sampling without replacement (Efraimidis–Spirakis keys). */
export function weightedOrder<T extends { weight: number }>(channels: ReadonlyArray<T>, random: RandomSource): T[] {
  return channels
    .map((channel) => ({ channel, key: Math.pow(random() || Number.MIN_VALUE, 1 / channel.weight) }))
    .sort((a, b) => b.key - a.key)
    .map((entry) => entry.channel);
}

/** Routes client model names to ordered channel candidates. */
export class ChannelRouter {
  private readonly byModel = new Map<string, Channel[]>();

  constructor(
    readonly channels: ReadonlyArray<Channel>,
    private readonly random: RandomSource = Math.random,
  ) {
    for (const channel of channels) {
      if (!channel.enabled) continue;
      for (const model of channel.models) {
        const list = this.byModel.get(model) ?? [];
        list.push(channel);
        this.byModel.set(model, list);
      }
    }
  }

  /** Client-facing model names that at least one enabled channel serves, sorted. */
  listModels(): string[] {
    return [...this.byModel.keys()].sort();
  }

  /** The channel with this id, if any. */
  channel(id: string): Channel | undefined {
    return this.channels.find((c) => c.id === id);
  }

  /**
   * Failover order for `model`: tiers by descending priority, weighted random within each tier.
   * Empty when no enabled channel serves the model.
   */
  candidatesFor(model: string): Channel[] {
    const serving = this.byModel.get(model);
    if (!serving) return [];
    const tiers = new Map<number, Channel[]>();
    for (const channel of serving) tiers.set(channel.priority, [...(tiers.get(channel.priority) ?? []), channel]);
    return [...tiers.keys()].sort((a, b) => b - a).flatMap((priority) => weightedOrder(tiers.get(priority) ?? [], this.random));
  }
}
