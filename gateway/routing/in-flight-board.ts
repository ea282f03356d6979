/**
 * The gateway's count of requests in flight per channel across the fleet, for least-busy routing:
 * this node's own attempts counted as they begin and end, plus the other nodes' counts as last
 * read from the in-flight registry (schemas/state-store/in-flight-registry.ts). A background loop
 * publishes this node's counts and reads the others' every `refreshMs`, in one round trip; the
 * router's questions are answered from memory, never by a network call.
 *
 * Fail-open: while the registry cannot be reached, the other nodes' last read is kept until it is
 * as old as the TTL the nodes publish with (3 × refreshMs), then dropped — routing goes on with
 * this node's counts only. Refresh failures are logged once per outage, recovery once.
 *
 * Wiring (gateway/app.ts and the root): `const board = new InFlightBoard({ registry, log })`,
 * `void board.start()`, around each upstream attempt `const end = board.begin(channelId)` …
 * `end()`, the router reads `board.inFlight(channelId)`, and `await board.stop()` on shutdown
 * (it withdraws this node's counts; it does not close the registry).
 */
import { randomUUID } from 'node:crypto';
import type { InFlightRegistry } from '../../schemas/state-store/in-flight-registry.ts';
import { PeriodicRefresh, type RefreshLog } from './periodic-refresh.ts';

/** What least-busy routing asks about a channel on every request (answered from memory). */
export interface InFlightSource {
  /** Requests in flight on `channelId` across the fleet: this node's live count + the other nodes' last read sum (≥ 0). */
  inFlight(channelId: string): number;
}

/** The logger the board writes to (pino / Fastify's logger fit). */
export type InFlightBoardLog = RefreshLog;

/** Options of InFlightBoard. Times in ms. */
export interface InFlightBoardOptions {
  /**
   * Where every node publishes its counts (openInFlightRegistry in infra/open-adapters.ts); none:
   * the board counts this node's attempts only and runs no loop.
   */
  readonly registry?: InFlightRegistry;
  /** This node's id in the registry (default: a random UUID, new at every start of the process). */
  readonly nodeId?: string;
  /** Background publish-and-read period, ms (default 1000); the counts are published with a TTL of 3 × this. */
  readonly refreshMs?: number;
  /** ms since epoch (default Date.now); ages the other nodes' last read. Injectable for tests. */
  readonly clock?: () => number;
  /** Told once when refreshes start failing and once when they recover. */
  readonly log?: InFlightBoardLog;
}

/** This node's in-flight attempts per channel and the fleet's, as an InFlightSource for the router. */
export class InFlightBoard implements InFlightSource {
  /** This node's id in the registry. */
  readonly nodeId: string;
  /** TTL of this node's published counts, ms (3 × refreshMs). */
  readonly ttlMs: number;
  private readonly local = new Map<string, number>();
  private others = new Map<string, number>();
  /** When `others` was read (clock ms); -Infinity before the first read. */
  private othersReadAt = Number.NEGATIVE_INFINITY;
  private readonly clock: () => number;
  private readonly loop: PeriodicRefresh;

  /** @throws RangeError when `refreshMs` is not a positive whole number of ms or `nodeId` is empty */
  constructor(private readonly options: InFlightBoardOptions) {
    this.nodeId = options.nodeId ?? randomUUID();
    if (this.nodeId === '') throw new RangeError('an in-flight board needs a non-empty node id');
    const refreshMs = options.refreshMs ?? 1_000;
    if (!Number.isSafeInteger(refreshMs) || refreshMs <= 0)
      throw new RangeError(
        `in-flight refreshMs must be a positive whole number of ms, got ${String(options.refreshMs)}`,
      );
    this.ttlMs = 3 * refreshMs;
    this.clock = options.clock ?? Date.now;
    this.loop = new PeriodicRefresh({
      periodMs: refreshMs,
      read: () => this.publishAndRead(),
      ...(options.log ? { log: options.log } : {}),
      failureMessage:
        "in-flight counts refresh failed; counting this node's requests only once the last read is older than its TTL",
      recoveryMessage: 'in-flight counts refresh recovered',
      recoveryDetails: () => ({ nodeId: this.nodeId }),
    });
  }

  /**
   * Counts one attempt of this node on `channelId` as in flight, at once. The returned function
   * ends it; calling it again does nothing.
   */
  begin(channelId: string): () => void {
    this.local.set(channelId, (this.local.get(channelId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.local.get(channelId) ?? 1) - 1;
      if (left > 0) this.local.set(channelId, left);
      else this.local.delete(channelId);
    };
  }

  /** This node's attempts in flight on `channelId`. */
  localInFlight(channelId: string): number {
    return this.local.get(channelId) ?? 0;
  }

  /** Requests in flight on `channelId` across the fleet (this node's now + the others' last read, while it is younger than the TTL). */
  inFlight(channelId: string): number {
    const fresh = this.clock() - this.othersReadAt < this.ttlMs;
    return this.localInFlight(channelId) + (fresh ? (this.others.get(channelId) ?? 0) : 0);
  }

  /**
   * Starts the background loop. The returned promise settles after the first refresh (true when
   * it succeeded) and never rejects; the board counts this node's attempts before it.
   */
  start(): Promise<boolean> {
    if (!this.options.registry) return Promise.resolve(true);
    return this.loop.start();
  }

  /**
   * Stops the loop and, once a refresh under way has finished, withdraws this node's counts from
   * the registry (best effort: when that fails they expire after the TTL). Never rejects; does
   * not close the registry.
   */
  async stop(): Promise<void> {
    this.loop.stop();
    await this.loop.pending;
    await this.options.registry?.withdraw(this.nodeId).catch(() => undefined);
  }

  /**
   * Publishes this node's counts and reads the other nodes' once, now; resolves true on success.
   * A failure keeps the last read (until it is as old as the TTL) and is logged once per outage.
   * Concurrent calls share one round trip.
   */
  refresh(): Promise<boolean> {
    return this.loop.refresh();
  }

  private async publishAndRead(): Promise<void> {
    const registry = this.options.registry;
    if (!registry) return;
    this.others = await registry.publishAndReadOthers(this.nodeId, new Map(this.local), this.ttlMs);
    this.othersReadAt = this.clock();
  }
}
