/**
 * The background loop behind every in-process snapshot of shared routing state (channel health,
 * in-flight counts, credential cooldowns): `read` runs at start and then `periodMs` after each
 * read ends, never two at once (a `refresh` during a read shares it), and never on the request
 * path. A failing read keeps the caller's last snapshot; the loop logs once when reads start
 * failing and once when they recover, not once per read.
 */

/** The logger the loop writes to (pino / Fastify's logger fit). */
export interface RefreshLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** Settings of a PeriodicRefresh. Times in ms. */
export interface PeriodicRefreshOptions {
  /** Time from the end of one read to the start of the next, ms. */
  readonly periodMs: number;
  /** Reads the shared state and replaces the snapshot; rejects when the state cannot be read. */
  readonly read: () => Promise<void>;
  readonly log?: RefreshLog;
  /** Logged (warn) when reads start failing, with the error's message as `reason`. */
  readonly failureMessage: string;
  /** Logged (info) when reads succeed again. */
  readonly recoveryMessage: string;
  /** Details added to the recovery line (e.g. how many channels were read). */
  readonly recoveryDetails?: () => object;
}

/** A self-rescheduling background read (see the module doc). */
export class PeriodicRefresh {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<boolean> | undefined;
  private running = false;
  private generation = 0;
  private failingNow = false;

  constructor(private readonly options: PeriodicRefreshOptions) {}

  /** True while the last read failed. */
  get failing(): boolean {
    return this.failingNow;
  }

  /** The read under way, if any (settles true on success; never rejects). */
  get pending(): Promise<boolean> | undefined {
    return this.inFlight;
  }

  /**
   * Starts the loop. The returned promise settles after the first read (true when it succeeded)
   * and never rejects; calling it while running returns the read under way or the last result.
   */
  start(): Promise<boolean> {
    if (this.running) return this.inFlight ?? Promise.resolve(!this.failingNow);
    this.running = true;
    return this.readAndSchedule(++this.generation);
  }

  /** Stops the loop; a read under way finishes (and is kept), no further one is scheduled. */
  stop(): void {
    this.running = false;
    this.generation += 1;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reads once, now (sharing a read under way); resolves true on success, never rejects. */
  refresh(): Promise<boolean> {
    this.inFlight ??= this.readOnce().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /**
   * Counts a failure of another call on the same store (a write) into the outage: logged like a
   * failed read unless the outage is already logged; the next successful read ends it.
   */
  noteFailure(error: unknown, details: object = {}): void {
    if (!this.failingNow)
      this.options.log?.warn({ reason: (error as Error).message, ...details }, this.options.failureMessage);
    this.failingNow = true;
  }

  private async readAndSchedule(generation: number): Promise<boolean> {
    const ok = await this.refresh();
    if (this.running && generation === this.generation) {
      this.timer = setTimeout(() => void this.readAndSchedule(generation), this.options.periodMs);
      this.timer.unref();
    }
    return ok;
  }

  private async readOnce(): Promise<boolean> {
    try {
      await this.options.read();
      if (this.failingNow) this.options.log?.info(this.options.recoveryDetails?.() ?? {}, this.options.recoveryMessage);
      this.failingNow = false;
      return true;
    } catch (error) {
      this.noteFailure(error);
      return false;
    }
  }
}
