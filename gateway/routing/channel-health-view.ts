/**
 * The gateway's view of channel health: an in-process snapshot of the shared ChannelHealth of
 * every channel, refreshed from the state store in the background every `refreshMs` (never on
 * the request path), combined with this node's LocalCircuitBreaker, which reacts at once to the
 * attempts this node makes. The router reads it through ChannelHealthSource.
 *
 * Wiring (gateway/app.ts): `const view = new ChannelHealthView({ store, channelIds, log })`,
 * `void view.start()`, `router.setHealthSource(view)`, exchange deps `onAttempt: view.onAttempt`,
 * and `view.stop()` on shutdown (it does not close the store).
 */
import { DEFAULT_HEALTH_POLICY, type ChannelHealth, type StateStore } from '../../schemas/state-store/state-store.ts';
import type { ChannelHealthSource } from './channel-health-source.ts';
import { LocalCircuitBreaker } from './local-circuit-breaker.ts';
import { PeriodicRefresh, type RefreshLog } from './periodic-refresh.ts';

/** The logger the view writes to (pino / Fastify's logger fit). */
export type HealthViewLog = RefreshLog;

/** Options of ChannelHealthView. Times in ms. */
export interface ChannelHealthViewOptions {
  /** Where the health consumer folds channel health. */
  readonly store: StateStore;
  /** The channels to track (every configured channel id). */
  channelIds: ReadonlyArray<string>;
  /** Background refresh period, ms (default 1000). */
  readonly refreshMs?: number;
  /** Consecutive local failures that open the local breaker (default DEFAULT_HEALTH_POLICY.failureThreshold = 3). */
  readonly failureThreshold?: number;
  /** How long the local breaker stays open after those failures, ms (default DEFAULT_HEALTH_POLICY.cooldownMs = 30000). */
  readonly cooldownMs?: number;
  /** ms since epoch (default Date.now); injectable for tests. */
  readonly clock?: () => number;
  /** Told once when refreshes start failing and once when they recover. */
  readonly log?: HealthViewLog;
}

/** Shared health snapshot + local circuit breaker, as a ChannelHealthSource for the router. */
export class ChannelHealthView implements ChannelHealthSource {
  private snapshot = new Map<string, ChannelHealth>();
  private readonly breaker: LocalCircuitBreaker;
  private readonly clock: () => number;
  private readonly loop: PeriodicRefresh;

  /** Changes which channels the next refreshes read (the control plane added or removed some). */
  setChannelIds(channelIds: ReadonlyArray<string>): void {
    this.options.channelIds = channelIds;
  }

  constructor(private readonly options: ChannelHealthViewOptions) {
    this.clock = options.clock ?? Date.now;
    this.loop = new PeriodicRefresh({
      periodMs: options.refreshMs ?? 1_000,
      read: () => this.readStore(),
      ...(options.log ? { log: options.log } : {}),
      failureMessage: 'channel health refresh failed; routing on the last snapshot',
      recoveryMessage: 'channel health refresh recovered',
      recoveryDetails: () => ({ channels: this.snapshot.size }),
    });
    this.breaker = new LocalCircuitBreaker({
      failureThreshold: options.failureThreshold ?? DEFAULT_HEALTH_POLICY.failureThreshold,
      cooldownMs: options.cooldownMs ?? DEFAULT_HEALTH_POLICY.cooldownMs,
      clock: this.clock,
    });
  }

  /**
   * Starts background refreshes. The returned promise settles after the first refresh (true when
   * it succeeded) and never rejects; routing works (on the local breaker only) before it.
   */
  start(): Promise<boolean> {
    return this.loop.start();
  }

  /** Stops background refreshes (an in-flight one finishes and is kept). Does not close the store. */
  stop(): void {
    this.loop.stop();
  }

  /**
   * Reads all channels' health from the store once, now; resolves true on success. A failed read
   * keeps the last snapshot (logged once per outage). Concurrent calls share one read.
   */
  refresh(): Promise<boolean> {
    return this.loop.refresh();
  }

  /** Tells the local breaker about one attempt of this node (ok false only for channel faults). */
  reportAttempt(channelId: string, ok: boolean, retryAfterMs?: number): void {
    this.breaker.report(channelId, ok, retryAfterMs);
  }

  /** `reportAttempt` in the shape of ExchangeDeps.onAttempt (bound; pass it as is). */
  readonly onAttempt = (channelId: string, result: { ok: boolean; retryAfterMs?: number }): void => {
    this.reportAttempt(channelId, result.ok, result.retryAfterMs);
  };

  /** True while the shared cooldown runs or this node's breaker is open. */
  isCoolingDown(channelId: string): boolean {
    const shared = this.snapshot.get(channelId);
    return (shared !== undefined && shared.cooldownUntil > this.clock()) || this.breaker.isOpen(channelId);
  }

  /** Shared window error rate from the last snapshot (0 when unknown). */
  errorRate(channelId: string): number {
    return this.snapshot.get(channelId)?.errorRate ?? 0;
  }

  /** The last shared health read for `channelId` (undefined before the first successful refresh). */
  sharedHealth(channelId: string): ChannelHealth | undefined {
    return this.snapshot.get(channelId);
  }

  /** Until when (ms since epoch) this node's breaker keeps `channelId` open; 0 when closed. */
  localOpenUntil(channelId: string): number {
    return this.breaker.openUntil(channelId);
  }

  private async readStore(): Promise<void> {
    const health = await this.options.store.getChannelHealth(this.options.channelIds, this.clock());
    this.snapshot = new Map(health.map((h) => [h.channelId, h]));
  }
}
