/**
 * The readiness of a gateway node, for `GET /readyz` (a load balancer's or Kubernetes' readiness
 * probe, https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/):
 * ready only while the node is not draining and every check passes. Checks run concurrently, each
 * bounded by a timeout, and one evaluation serves every probe for `cacheMs`, so probes never pile
 * up on an engine that hangs.
 */

/** One named check: resolves when the part it checks works, throws an Error saying why not. */
export interface ReadinessCheck {
  /** The key in the report, e.g. `controlPlane`, `redis`. */
  readonly name: string;
  run(): Promise<void> | void;
}

/** The result of one check: `reason` when it failed. */
export interface CheckResult {
  readonly ok: boolean;
  readonly reason?: string;
}

/** What /readyz answers: HTTP 200 when `status` is `ready`, else 503. */
export interface ReadinessReport {
  readonly status: 'ready' | 'not-ready' | 'draining';
  readonly checks: Readonly<Record<string, CheckResult>>;
}

/** Options of ReadinessProbe. */
export interface ReadinessProbeOptions {
  /** Longest one check may take before it counts as failed, ms (default 500). */
  readonly timeoutMs?: number;
  /** How long one evaluation answers every probe, ms (default 1000). */
  readonly cacheMs?: number;
}

/** Evaluates the checks of one node; `draining()` says whether its drain began. */
export class ReadinessProbe {
  private readonly timeoutMs: number;
  private readonly cacheMs: number;
  private cached: { readonly at: number; readonly report: Promise<ReadinessReport> } | undefined;

  constructor(
    private readonly checks: ReadonlyArray<ReadinessCheck>,
    private readonly draining: () => boolean,
    options: ReadinessProbeOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 500;
    this.cacheMs = options.cacheMs ?? 1000;
  }

  /** The node's readiness now: `draining` at once once the drain began, else the checks (cached for `cacheMs`). Never rejects. */
  report(): Promise<ReadinessReport> {
    if (this.draining())
      return Promise.resolve({
        status: 'draining',
        checks: { drain: { ok: false, reason: 'the node is shutting down and drains the requests in flight' } },
      });
    const now = Date.now();
    if (this.cached && now - this.cached.at < this.cacheMs) return this.cached.report;
    const report = this.evaluate();
    this.cached = { at: now, report };
    return report;
  }

  private async evaluate(): Promise<ReadinessReport> {
    const results = await Promise.all(this.checks.map((check) => this.runBounded(check)));
    const checks: Record<string, CheckResult> = {};
    this.checks.forEach((check, index) => {
      checks[check.name] = results[index] ?? { ok: false, reason: 'not run' };
    });
    return { status: results.every((result) => result.ok) ? 'ready' : 'not-ready', checks };
  }

  private async runBounded(check: ReadinessCheck): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(() => check.run()), timeout]);
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }
}
