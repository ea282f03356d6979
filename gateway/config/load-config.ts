/**
 * Loads the configuration: reads `TOLLGATE_CONFIG` (YAML or JSON; `${VAR}` and `${VAR:-default}`
 * expand from the environment), validates file and environment with one zod pass, and returns a
 * frozen GatewayConfig. Without a config file it returns the demo configuration (a mock channel
 * and the demo key `sk-tollgate-demo`).
 */
import { expandEnvironment, readConfigDocument } from './read-config-document.ts';
import type { z } from 'zod';
import { configFileSchema, envSchema, type ConfigFile, type GatewayConfig } from './config-schema.ts';

/** Raised when configuration is invalid; `problems` lists every problem, one per line. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The demo key accepted when no config file is given. */
export const DEMO_KEY = 'sk-tollgate-demo';

const DEMO_CONFIG: ConfigFile = configFileSchema.parse({
  channels: [
    {
      id: 'demo-mock',
      provider: 'mock',
      protocol: 'openai-chat',
      models: ['mock-1', 'gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash'],
      mock: { chunkDelayMs: 20 },
    },
  ],
  keys: [{ name: 'demo', key: DEMO_KEY }],
  prices: ['mock-1', 'gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash'].map((model) => ({
    model,
    inputPerMTok: 0.5,
    outputPerMTok: 1.5,
    cacheReadPerMTok: 0.05,
  })),
});

function formatIssues(prefix: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
      .join('')
      .replace(/^\./, '');
    return `${prefix}${path ? path + ': ' : ''}${issue.message}`;
  });
}

/**
 * Builds the GatewayConfig from `env` (the composition root passes process.env) and the file it names.
 * @throws ConfigError listing every problem found.
 */
export function loadConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const problems: string[] = [];
  const envResult = envSchema.safeParse(env);
  if (!envResult.success) problems.push(...formatIssues('env ', envResult.error));
  const configPath = env.TOLLGATE_CONFIG;
  let file: ConfigFile | undefined = configPath ? undefined : DEMO_CONFIG;
  if (configPath) {
    const raw = readConfigDocument(configPath, problems);
    if (raw !== undefined) {
      const expanded = expandEnvironment(raw ?? {}, env, problems);
      const fileResult = configFileSchema.safeParse(expanded);
      if (fileResult.success) file = fileResult.data;
      else problems.push(...formatIssues('', fileResult.error));
    }
  }
  if (problems.length > 0 || !envResult.success || !file) throw new ConfigError(problems);
  return buildConfig(envResult.data, file, !configPath);
}

/** Combines validated env and file into a frozen GatewayConfig. */
export function buildConfig(env: z.infer<typeof envSchema>, file: ConfigFile, demo = false): GatewayConfig {
  return Object.freeze({
    port: env.PORT,
    host: env.HOST,
    bodyLimit: env.TOLLGATE_BODY_LIMIT,
    logLevel: env.LOG_LEVEL,
    channels: Object.freeze(file.channels.map((c) => Object.freeze(c))),
    keys: Object.freeze(file.keys.map((k) => Object.freeze(k))),
    prices: Object.freeze([...file.prices]),
    attribution: Object.freeze({ endUserFrom: Object.freeze([...file.attribution.endUserFrom]) }),
    budgets: Object.freeze({ timeZone: file.budgets.timeZone }),
    routing: file.routing,
    dataDir: env.TOLLGATE_DATA_DIR,
    requestDeadlineMs: env.TOLLGATE_REQUEST_DEADLINE_MS,
    drainTimeoutMs: env.TOLLGATE_DRAIN_TIMEOUT_MS,
    ...(env.TOLLGATE_UPSTREAM_CONNECTIONS > 0 ? { upstreamConnections: env.TOLLGATE_UPSTREAM_CONNECTIONS } : {}),
    consumers: env.TOLLGATE_CONSUMERS ?? (env.KAFKA_BROKERS ? 'off' : 'in-process'),
    trustProxy: env.TOLLGATE_TRUST_PROXY ?? false,
    storeOutage: Object.freeze({
      limits: env.TOLLGATE_LIMITS_ON_STORE_OUTAGE,
      quotas: env.TOLLGATE_QUOTAS_ON_STORE_OUTAGE,
    }),
    ...(env.TOLLGATE_ADMIN_TOKEN ? { adminToken: env.TOLLGATE_ADMIN_TOKEN } : {}),
    metricsPath: env.TOLLGATE_METRICS_PATH === 'off' ? false : env.TOLLGATE_METRICS_PATH,
    ...(env.KAFKA_BROKERS
      ? {
          kafkaBrokers: env.KAFKA_BROKERS.split(',')
            .map((b) => b.trim())
            .filter(Boolean),
        }
      : {}),
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(env.REDIS_CLUSTER_NODES ? { redisClusterNodes: env.REDIS_CLUSTER_NODES } : {}),
    ...(env.CLICKHOUSE_URL ? { clickhouseUrl: env.CLICKHOUSE_URL } : {}),
    demo,
  });
}

/** Parses a config object (as from a file) for tests and embedders. @throws ConfigError */
export function parseConfigFile(raw: unknown, env: Partial<z.input<typeof envSchema>> = {}): GatewayConfig {
  const fileResult = configFileSchema.safeParse(raw);
  if (!fileResult.success) throw new ConfigError(formatIssues('', fileResult.error));
  return buildConfig(envSchema.parse(env), fileResult.data);
}
