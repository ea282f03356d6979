/**
 * Real engines for integration tests. vitest's global setup (global-engines.ts) provides them
 * through KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL: the caller's when all three are set, else
 * engines it starts for the run on free ports. When no engine can be had it sets
 * TOLLGATE_TEST_ENGINES_MISSING to the one line it printed, and the suites that need an engine
 * skip themselves with `describe.skipIf(withoutEngines)` or `runnableCases` (with CI=true the
 * global setup fails instead, so CI never skips them).
 */

/** The engines a test may need, by the environment variable that points at them. */
export type EngineName = 'KAFKA_BROKERS' | 'CLICKHOUSE_URL' | 'REDIS_URL';

/** Set by the global setup to the reason this run has no engines (what to install). */
export const ENGINES_MISSING_VARIABLE = 'TOLLGATE_TEST_ENGINES_MISSING';

/** Why this run has no engines, or undefined when it has them. */
export const enginesMissing: string | undefined = process.env[ENGINES_MISSING_VARIABLE] || undefined;

/** True when this run has no engines: `describe.skipIf(withoutEngines)('…on Kafka', …)`. */
export const withoutEngines: boolean = enginesMissing !== undefined;

/**
 * The cases of a `describe.each` that can run: all of them with engines, else only those that
 * need none (e.g. `runnableCases(['embedded', 'production'], (set) => set === 'production')`).
 */
export function runnableCases<T>(cases: readonly T[], needsEngines: (testCase: T) => boolean): T[] {
  return withoutEngines ? cases.filter((testCase) => !needsEngines(testCase)) : [...cases];
}

/**
 * Returns the engine's address: `host:port[,host:port]` for KAFKA_BROKERS, `http://host:port`
 * for CLICKHOUSE_URL, `redis://host:port` for REDIS_URL.
 * @throws Error when the variable is absent (a suite that needs the engine but does not skip
 *   with withoutEngines, or a run without the global setup); the message names the fix.
 */
export async function requireEngineUrl(name: EngineName): Promise<string> {
  const fromEnv = process.env[name]?.trim();
  if (fromEnv) return fromEnv;
  throw new Error(
    enginesMissing ??
      `${name} is not set: run the tests with vitest's global setup (test/support/global-engines.ts), ` +
        `or run \`npm run infra:up\` and export what it prints (\`eval "$(npm run -s infra:env)"\`).`,
  );
}
