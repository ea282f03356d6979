/**
 * Key pools (README "Key pools"): the credentials of one channel and which of them an attempt
 * uses. A channel's credentials are its `credentials` list, or its lone `apiKey` as the pool
 * member `default`. The pool orders the usable ones for an attempt — those not cooling down —
 * fairly (round robin per channel, each request starting one further), a preferred credential
 * first when it is usable (prompt-cache affinity passes the one that served the conversation
 * last). A credential the upstream refused (429, 401, 403) is marked cooling at once on this node
 * and written to the shared CredentialCooldownStore, whose running cooldowns every node reads in
 * the background into an in-process snapshot (like channel-health-view.ts): the request path
 * never waits on the network here. It also keeps this node's counts per credential (requests,
 * rotations, last error kind) for the admin API, the console and metrics. Only ids are kept
 * beside the secrets routing already holds; nothing here logs a secret.
 *
 * Wiring (gateway/app.ts): `new CredentialPool({ store, channelIds, log })`, `start()` when the
 * app is ready, `setChannelIds` when channels change, `stop()` on close.
 */
import type {
  CredentialCooldown,
  CredentialCooldownReason,
  CredentialCooldownStore,
} from '../../schemas/state-store/credential-cooldowns.ts';
import type { ChannelConfig } from '../config/config-schema.ts';
import { PeriodicRefresh, type RefreshLog } from './periodic-refresh.ts';

/** The pool member id of a channel's lone `apiKey`. */
export const DEFAULT_CREDENTIAL_ID = 'default';

/** One credential of a channel: its id, the secret (never log it) and its own limits (null = unlimited). */
export interface PooledCredential {
  readonly id: string;
  /** A secret: never log it. */
  readonly apiKey: string;
  /** Requests per minute, null = unlimited. */
  readonly rpm: number | null;
  /** Tokens per minute, null = unlimited. */
  readonly tpm: number | null;
}

/** The credentials of a channel: its `credentials`, or its `apiKey` as the one credential `default` (unlimited). */
export function credentialsOf(channel: Pick<ChannelConfig, 'apiKey' | 'credentials'>): ReadonlyArray<PooledCredential> {
  if (channel.credentials && channel.credentials.length > 0) return channel.credentials;
  return [{ id: DEFAULT_CREDENTIAL_ID, apiKey: channel.apiKey, rpm: null, tpm: null }];
}

/**
 * Default cooldown after a 429 without Retry-After, ms (60 s: the window of the per-minute
 * limits providers apply, e.g. https://platform.openai.com/docs/guides/rate-limits).
 */
export const DEFAULT_RATE_LIMITED_COOLDOWN_MS = 60_000;
/** Default cooldown after a 401 or 403 (a revoked or unauthorised key is unlikely to heal soon), ms (10 min). */
export const DEFAULT_REFUSED_COOLDOWN_MS = 600_000;
/** Longest cooldown taken from a Retry-After, ms (1 h): a larger value is capped. */
export const MAX_COOLDOWN_MS = 3_600_000;

/**
 * How long a credential cools down after the upstream answered `reason`: the upstream's
 * Retry-After when it sent one (capped at MAX_COOLDOWN_MS, at least 1 s), else
 * DEFAULT_RATE_LIMITED_COOLDOWN_MS for 429 and DEFAULT_REFUSED_COOLDOWN_MS for 401/403. ms.
 */
export function cooldownMsFor(reason: CredentialCooldownReason, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0)
    return Math.min(MAX_COOLDOWN_MS, Math.max(1_000, Math.ceil(retryAfterMs)));
  return reason === 'rate-limited' ? DEFAULT_RATE_LIMITED_COOLDOWN_MS : DEFAULT_REFUSED_COOLDOWN_MS;
}

/** What the admin API, the console and metrics show of one credential (ids and counts, never the secret). */
export interface CredentialState {
  readonly id: string;
  /** Until when it cools down, ms since epoch; 0 when usable. */
  readonly coolingUntil: number;
  /** Why it cools down (or last cooled down), null when it never did on this node or in the shared snapshot. */
  readonly lastErrorKind: CredentialCooldownReason | null;
  /** Attempts sent with it by this node. */
  readonly requests: number;
  /** Times this node rotated away from it to the next credential of the channel. */
  readonly rotations: number;
}

/** The logger the pool writes to (pino / Fastify's logger fit). */
export type CredentialPoolLog = RefreshLog;

/** Options of CredentialPool. Times in ms. */
export interface CredentialPoolOptions {
  /** Where cooldowns are shared between nodes; none: this node's marks only. */
  readonly store?: CredentialCooldownStore;
  /** The channels whose shared cooldowns are read (every configured channel id). */
  readonly channelIds?: ReadonlyArray<string>;
  /** Background refresh period, ms (default 1000). */
  readonly refreshMs?: number;
  /** ms since epoch (default Date.now); injectable for tests. */
  readonly clock?: () => number;
  /** Told once when store reads or writes start failing and once when reads recover. */
  readonly log?: CredentialPoolLog;
}

/** This node's counts of one credential. */
interface CredentialCounts {
  requests: number;
  rotations: number;
}

/** The credential choice of every channel, with local and shared cooldowns. */
export class CredentialPool {
  private readonly clock: () => number;
  private readonly loop: PeriodicRefresh;
  private channelIds: ReadonlyArray<string>;
  /** Shared cooldowns by `channel\0credential`, from the last read of the store. */
  private shared = new Map<string, CredentialCooldown>();
  /** This node's own marks by `channel\0credential` (kept until they end). */
  private readonly local = new Map<string, CredentialCooldown>();
  private readonly lastReason = new Map<string, CredentialCooldownReason>();
  private readonly counts = new Map<string, CredentialCounts>();
  private readonly cursors = new Map<string, number>();

  constructor(private readonly options: CredentialPoolOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.channelIds = options.channelIds ?? [];
    this.loop = new PeriodicRefresh({
      periodMs: options.refreshMs ?? 1_000,
      read: () => this.readStore(),
      ...(options.log ? { log: options.log } : {}),
      failureMessage: 'credential cooldown store unavailable; using this node’s cooldowns',
      recoveryMessage: 'credential cooldown refresh recovered',
      recoveryDetails: () => ({ cooling: this.shared.size }),
    });
  }

  /** Changes which channels the next refreshes read (the control plane added or removed some). */
  setChannelIds(channelIds: ReadonlyArray<string>): void {
    this.channelIds = channelIds;
  }

  /** Starts background refreshes; settles after the first (true when it succeeded), never rejects. */
  start(): Promise<boolean> {
    if (!this.options.store) return Promise.resolve(true);
    return this.loop.start();
  }

  /** Stops background refreshes (does not close the store). */
  stop(): void {
    this.loop.stop();
  }

  /** Reads the shared cooldowns once, now; true on success (a failed read keeps the last snapshot). */
  refresh(): Promise<boolean> {
    return this.loop.refresh();
  }

  /**
   * The usable credentials of `channel` for one attempt, in the order to try them: not cooling
   * down, `preferredId` first when it is one of them, the rest round robin (each call starts one
   * further along the channel's list). Empty when every credential is cooling down.
   */
  order(
    channel: { readonly id: string } & Pick<ChannelConfig, 'apiKey' | 'credentials'>,
    preferredId?: string,
  ): PooledCredential[] {
    const all = credentialsOf(channel);
    const start = this.cursors.get(channel.id) ?? 0;
    this.cursors.set(channel.id, (start + 1) % all.length);
    const now = this.clock();
    const rotated = [...all.slice(start % all.length), ...all.slice(0, start % all.length)];
    const usable = rotated.filter((credential) => this.coolingUntil(channel.id, credential.id, now) === 0);
    const preferred = usable.findIndex((credential) => credential.id === preferredId);
    if (preferred > 0) usable.unshift(...usable.splice(preferred, 1));
    return usable;
  }

  /** Until when (ms since epoch) `credentialId` of `channelId` cools down, by this node's mark or the shared snapshot; 0 when usable. */
  coolingUntil(channelId: string, credentialId: string, now: number = this.clock()): number {
    const key = keyOf(channelId, credentialId);
    const until = Math.max(this.local.get(key)?.untilMs ?? 0, this.shared.get(key)?.untilMs ?? 0);
    return until > now ? until : 0;
  }

  /**
   * Marks a credential cooling for `cooldownMs` from now: at once on this node, and written to
   * the shared store in the background (a failed write is logged once per outage, never thrown).
   * Counts a rotation away from it.
   */
  markCooling(channelId: string, credentialId: string, reason: CredentialCooldownReason, cooldownMs: number): void {
    const key = keyOf(channelId, credentialId);
    const cooldown: CredentialCooldown = {
      channelId,
      credentialId,
      untilMs: Math.floor(this.clock() + cooldownMs),
      reason,
    };
    const running = this.local.get(key);
    if (!running || running.untilMs < cooldown.untilMs) this.local.set(key, cooldown);
    this.lastReason.set(key, reason);
    this.countsOf(key).rotations++;
    this.options.store
      ?.markCooling(cooldown)
      .catch((error: unknown) => this.loop.noteFailure(error, { operation: 'write' }));
  }

  /** Counts one attempt sent with `credentialId` of `channelId`. */
  noteRequest(channelId: string, credentialId: string): void {
    this.countsOf(keyOf(channelId, credentialId)).requests++;
  }

  /** The state of each credential of `channel` now (ids, cooldowns, this node's counts). */
  stateOf(channel: { readonly id: string } & Pick<ChannelConfig, 'apiKey' | 'credentials'>): CredentialState[] {
    const now = this.clock();
    return credentialsOf(channel).map((credential) => {
      const key = keyOf(channel.id, credential.id);
      const counts = this.counts.get(key);
      return {
        id: credential.id,
        coolingUntil: this.coolingUntil(channel.id, credential.id, now),
        lastErrorKind: this.lastReason.get(key) ?? this.shared.get(key)?.reason ?? null,
        requests: counts?.requests ?? 0,
        rotations: counts?.rotations ?? 0,
      };
    });
  }

  private countsOf(key: string): CredentialCounts {
    let counts = this.counts.get(key);
    if (!counts) {
      counts = { requests: 0, rotations: 0 };
      this.counts.set(key, counts);
    }
    return counts;
  }

  private async readStore(): Promise<void> {
    const store = this.options.store;
    if (!store) return;
    const now = this.clock();
    const cooling = await store.readCooling(this.channelIds, now);
    this.shared = new Map(cooling.map((c) => [keyOf(c.channelId, c.credentialId), c]));
    for (const [key, mark] of this.local) if (mark.untilMs <= now) this.local.delete(key);
  }
}

/** The map key of one credential of one channel (ids cannot contain NUL). */
function keyOf(channelId: string, credentialId: string): string {
  return `${channelId}\0${credentialId}`;
}
