/**
 * Loads the configuration: reads `TOLLGATE_CONFIG` (YAML or JSON; `${VAR}` and `${VAR:-default}`
 * expand from the environment), validates file and environment with one zod pass, and returns a
 * frozen GatewayConfig. Without a config file it returns the demo configuration (a mock channel
 * and the demo key `sk-tollgate-demo`).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
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
    { id: 'demo-mock', provider: 'mock', protocol: 'openai-chat', models: ['mock-1', 'gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash'], mock: { chunkDelayMs: 20 } },
  ],
  keys: [{ name: 'demo', key: DEMO_KEY }],
});

/**
 * Replaces `${VAR}` / `${VAR:-default}` in every string of a parsed document. A reference to an
 * unset variable without default is reported as a problem (path + name).
 */
export function expandEnvironment(value: unknown, env: NodeJS.ProcessEnv, problems: string[], path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      problems.push(`${path || '(root)'}: environment variable ${name} is not set`);
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => expandEnvironment(item, env, problems, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandEnvironment(v, env, problems, path ? `${path}.${k}` : k)]));
  }
  return value;
}

function formatIssues(prefix: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
    return `${prefix}${path ? path + ': ' : ''}${issue.message}`;
  });
}

function readConfigFile(path: string, problems: string[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(`TOLLGATE_CONFIG: cannot read ${path}: ${(error as Error).message}`);
    return undefined;
  }
  try {
    return path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    problems.push(`${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * Builds the GatewayConfig from the environment (and the file it names).
 * @throws ConfigError listing every problem found.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const problems: string[] = [];
  const envResult = envSchema.safeParse(env);
  if (!envResult.success) problems.push(...formatIssues('env ', envResult.error));
  const configPath = env.TOLLGATE_CONFIG;
  let file: ConfigFile | undefined = configPath ? undefined : DEMO_CONFIG;
  if (configPath) {
    const raw = readConfigFile(configPath, problems);
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
    demo,
  });
}

/** Parses a config object (as from a file) for tests and embedders. @throws ConfigError */
export function parseConfigFile(raw: unknown, env: Partial<z.input<typeof envSchema>> = {}): GatewayConfig {
  const fileResult = configFileSchema.safeParse(raw);
  if (!fileResult.success) throw new ConfigError(formatIssues('', fileResult.error));
  return buildConfig(envSchema.parse(env), fileResult.data);
}
