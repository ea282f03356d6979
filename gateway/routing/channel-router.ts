/**
 * Chooses channels for a model: enabled channels serving it, highest priority tier first, and
 * within a tier the order of the model's routing strategy (weighted random by default). The order
 * is the failover order. How the rules combine (README "Routing"), strongest first:
 * 1. priority tiers — a lower tier is tried only after every channel of the higher ones;
 * 2. health — channels cooling down (shared cooldown or this node's breaker open) move to the END
 *    of the order, still tried when all others failed, never dropped;
 * 3. prompt-cache affinity — the conversation's pinned channel goes first when it is ready and in
 *    the first ready tier (limits are applied after: a pinned channel at its limit is skipped);
 * 4. the strategy orders the rest of each tier: `weighted` (random by weight scaled by
 *    max(MIN_HEALTH_WEIGHT_FACTOR, 1 − errorRate)), `latency`, `least-busy` or `cost` (lowest
 *    score first; channels whose score is within the strategy's tolerance of the best share by
 *    weight; channels without a score — no latency sample yet, no price — after those with one,
 *    except for latency, where an unmeasured channel is tried first so that it gets measured).
 * Without a health source and with the default strategy the order is exactly the weighted one
 * (same draws from `random`).
 */
import type { RoutingStrategy } from '../config/routing-settings.ts';
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

  /**
   * Whether a request for `model` has an upstream account to choose: more than one enabled channel
   * serves it, or its one channel has a key pool. Without a choice, prompt-cache affinity has
   * nothing to keep.
   */
  hasAccountChoice(model: string): boolean {
    const serving = this.byModel.get(model) ?? NO_CHANNELS;
    return serving.length > 1 || (serving[0]?.credentials?.length ?? 0) > 1;
  }

  /** The channel with this id, if any. */
  channel(id: string): Channel | undefined {
    return this.channels.find((c) => c.id === id);
  }

  /**
   * Failover order for `model`: tiers by descending priority, the strategy's order within each
   * tier (weighted random by default); with `health` (default: the router's source) cooling
   * channels last and weights de-weighted by error rate; the ready pinned channel first when it
   * is in the first ready tier. Empty when no enabled channel serves the model.
   */
  candidatesFor(
    model: string,
    health: ChannelHealthSource | undefined = this.health,
    route: RouteOptions = {},
  ): Channel[] {
    const serving = this.byModel.get(model);
    if (!serving) return [];
    // One channel: every strategy, health state and pin orders it the same (most models of a
    // small deployment), so no tiers, weights or scores are built for it.
    if (serving.length === 1) return [serving[0] as Channel];
    const strategy = route.strategy ?? 'weighted';
    const score = strategy === 'weighted' ? undefined : scorerFor(strategy, route);
    if (!health && !score && route.preferredChannelId === undefined)
      return this.order(serving, (channel) => channel.weight, undefined);
    const ready: Channel[] = [];
    const cooling: Channel[] = [];
    for (const channel of serving) (health?.isCoolingDown(channel.id) ? cooling : ready).push(channel);
    const weightOf = (channel: Channel): number =>
      channel.weight * Math.max(MIN_HEALTH_WEIGHT_FACTOR, 1 - (health?.errorRate(channel.id) ?? 0));
    const ordered = this.order(ready, weightOf, score);
    pinFirst(ordered, route.preferredChannelId);
    return [...ordered, ...this.order(cooling, weightOf, score)];
  }

  /** Tiers by descending priority; within each, by `score` (lowest first, see scoredOrder) or weighted random by `weightOf`. */
  private order(
    channels: ReadonlyArray<Channel>,
    weightOf: (channel: Channel) => number,
    score: ChannelScorer | undefined,
  ): Channel[] {
    const tiers = new Map<number, Array<{ channel: Channel; weight: number }>>();
    for (const channel of channels)
      tiers.set(channel.priority, [...(tiers.get(channel.priority) ?? []), { channel, weight: weightOf(channel) }]);
    return [...tiers.keys()]
      .sort((a, b) => b - a)
      .flatMap((priority) => {
        const tier = tiers.get(priority) ?? [];
        const ordered = score ? scoredOrder(tier, score, this.random) : weightedOrder(tier, this.random);
        return ordered.map((entry) => entry.channel);
      });
  }
}

/** What a strategy other than `weighted` reads about each channel (answered from memory, never a network call). */
export interface RoutingSignals {
  /** EWMA of time to first byte (`first-token`) or of total time (`total`) of successful calls, ms; 0 when unmeasured. */
  latencyMs(channelId: string, phase: 'first-token' | 'total'): number;
  /** Requests in flight on the channel across every gateway node. */
  inFlight(channelId: string): number;
}

/** Per-request inputs of the order (ChannelRouter.candidatesFor). */
export interface RouteOptions {
  /** The model's strategy (default `weighted`). */
  readonly strategy?: RoutingStrategy;
  /** The channel the conversation is pinned to (prompt-cache affinity). */
  readonly preferredChannelId?: string;
  /** Latency and load per channel, for `latency` and `least-busy`; none: every channel scores alike. */
  readonly signals?: RoutingSignals;
  /** Whether the request streams: `latency` then compares time to first token, else total time. */
  readonly stream?: boolean;
  /** The request's expected cost on a channel, USD, for `cost`; undefined: the channel's model has no price. */
  readonly costOf?: (channel: Channel) => number | undefined;
}

/** A channel's score under a strategy (lower is better), or undefined when it has none. */
type ChannelScorer = {
  readonly of: (channel: Channel) => number | undefined;
  readonly tolerance: number;
  readonly unscoredFirst: boolean;
};

/** Channels within this ratio above the best latency share the lead by weight (0.1 = 10 %). */
export const LATENCY_TOLERANCE = 0.1;

function scorerFor(strategy: Exclude<RoutingStrategy, 'weighted'>, route: RouteOptions): ChannelScorer {
  const signals = route.signals;
  if (strategy === 'latency') {
    const phase = route.stream ? 'first-token' : 'total';
    return {
      of: (channel) => {
        const ms = signals?.latencyMs(channel.id, phase) ?? 0;
        return ms > 0 ? ms : undefined;
      },
      tolerance: LATENCY_TOLERANCE,
      unscoredFirst: true,
    };
  }
  if (strategy === 'least-busy')
    return { of: (channel) => signals?.inFlight(channel.id) ?? 0, tolerance: 0, unscoredFirst: false };
  return { of: (channel) => route.costOf?.(channel), tolerance: 0, unscoredFirst: false };
}

/**
 * One tier by score: the channels whose score is within `tolerance` of the best (score ≤ best ×
 * (1 + tolerance)) by weighted random, then the other scored channels by ascending score, with the
 * unscored ones first (`unscoredFirst`) or last, weighted random among themselves.
 */
function scoredOrder<T extends { channel: Channel; weight: number }>(
  tier: ReadonlyArray<T>,
  scorer: ChannelScorer,
  random: RandomSource,
): T[] {
  const scored: Array<{ entry: T; score: number }> = [];
  const unscored: T[] = [];
  for (const entry of tier) {
    const score = scorer.of(entry.channel);
    if (score === undefined || !Number.isFinite(score)) unscored.push(entry);
    else scored.push({ entry, score });
  }
  scored.sort((a, b) => a.score - b.score);
  const best = scored[0]?.score ?? 0;
  const limit = best * (1 + scorer.tolerance);
  const lead = scored.filter((s) => s.score <= limit).map((s) => s.entry);
  const rest = scored.filter((s) => s.score > limit).map((s) => s.entry);
  const byScore = [...weightedOrder(lead, random), ...rest];
  const others = weightedOrder(unscored, random);
  return scorer.unscoredFirst ? [...others, ...byScore] : [...byScore, ...others];
}

/** Moves the pinned channel to the front when it is in the first tier of `ordered` (ready channels only). */
function pinFirst(ordered: Channel[], preferredChannelId: string | undefined): void {
  if (preferredChannelId === undefined || ordered.length === 0) return;
  const index = ordered.findIndex((channel) => channel.id === preferredChannelId);
  if (index <= 0) return;
  const pinned = ordered[index] as Channel;
  if (pinned.priority !== (ordered[0] as Channel).priority) return;
  ordered.splice(index, 1);
  ordered.unshift(pinned);
}
