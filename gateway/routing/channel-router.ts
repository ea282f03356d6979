/**
 * Chooses channels for a model: enabled channels serving it, highest priority tier first,
 * weighted random order within a tier. The order is the failover order.
 *
 * With a health source (setHealthSource / constructor / per call): channels cooling down (shared
 * cooldown or this node's breaker open) move to the END of the order — still tried when all
 * others failed, never dropped — keeping tiers and weighted order among themselves; and every
 * weight is scaled by max(MIN_HEALTH_WEIGHT_FACTOR, 1 − errorRate). Without one, the order is
 * exactly as before (same draws from `random`).
 */
import type { Channel } from './channel.ts';
import type { ChannelHealthSource } from './channel-health-source.ts';

/** Random source in [0, 1); injectable for tests. */
export type RandomSource = () => number;

/** Least share of its weight a channel keeps however high its error rate (0.05 = 5 %). */
export const MIN_HEALTH_WEIGHT_FACTOR = 0.05;

/** Orders `channels` by weighted random sampling without replacement (Efraimidis–Spirakis keys). */
export function weightedOrder<T extends { weight: number }>(channels: ReadonlyArray<T>, random: RandomSource): T[] {
  return channels
    .map((channel) => ({ channel, key: Math.pow(random() || Number.MIN_VALUE, 1 / channel.weight) }))
    .sort((a, b) => b.key - a.key)
    .map((entry) => entry.channel);
}

const NO_CHANNELS: ReadonlyArray<Channel> = Object.freeze([]);

/** Routes client model names to ordered channel candidates. */
export class ChannelRouter {
  private byModel = new Map<string, Channel[]>();
  private current: ReadonlyArray<Channel> = [];

  constructor(
    channels: ReadonlyArray<Channel>,
    private readonly random: RandomSource = Math.random,
    private health?: ChannelHealthSource,
  ) {
    this.setChannels(channels);
  }

  /** Every channel (enabled or not) the router knows. */
  get channels(): ReadonlyArray<Channel> {
    return this.current;
  }

  /** Replaces the channel table (the control plane changed); requests already routed keep their candidates. */
  setChannels(channels: ReadonlyArray<Channel>): void {
    const byModel = new Map<string, Channel[]>();
    for (const channel of channels) {
      if (!channel.enabled) continue;
      for (const model of channel.models) {
        const list = byModel.get(model) ?? [];
        list.push(channel);
        byModel.set(model, list);
      }
    }
    this.current = channels;
    this.byModel = byModel;
  }

  /** Sets (or, with undefined, removes) the health source every later `candidatesFor` uses. */
  setHealthSource(health: ChannelHealthSource | undefined): void {
    this.health = health;
  }

  /** Client-facing model names that at least one enabled channel serves, sorted. */
  listModels(): string[] {
    return [...this.byModel.keys()].sort();
  }

  /** The enabled channels serving `model`, in table order (no ordering work; [] when none). */
  channelsServing(model: string): ReadonlyArray<Channel> {
    return this.byModel.get(model) ?? NO_CHANNELS;
  }

  /** The channel with this id, if any. */
  channel(id: string): Channel | undefined {
    return this.channels.find((c) => c.id === id);
  }

  /**
   * Failover order for `model`: tiers by descending priority, weighted random within each tier;
   * with `health` (default: the router's source) cooling channels last and weights de-weighted
   * by error rate. Empty when no enabled channel serves the model.
   */
  candidatesFor(model: string, health: ChannelHealthSource | undefined = this.health): Channel[] {
    const serving = this.byModel.get(model);
    if (!serving) return [];
    if (!health) return this.order(serving, (channel) => channel.weight);
    const ready: Channel[] = [];
    const cooling: Channel[] = [];
    for (const channel of serving) (health.isCoolingDown(channel.id) ? cooling : ready).push(channel);
    const weightOf = (channel: Channel): number =>
      channel.weight * Math.max(MIN_HEALTH_WEIGHT_FACTOR, 1 - health.errorRate(channel.id));
    return [...this.order(ready, weightOf), ...this.order(cooling, weightOf)];
  }

  /** Tiers by descending priority, weighted random (by `weightOf`) within each. */
  private order(channels: ReadonlyArray<Channel>, weightOf: (channel: Channel) => number): Channel[] {
    const tiers = new Map<number, Array<{ channel: Channel; weight: number }>>();
    for (const channel of channels)
      tiers.set(channel.priority, [...(tiers.get(channel.priority) ?? []), { channel, weight: weightOf(channel) }]);
    return [...tiers.keys()]
      .sort((a, b) => b - a)
      .flatMap((priority) => weightedOrder(tiers.get(priority) ?? [], this.random).map((entry) => entry.channel));
  }
}
