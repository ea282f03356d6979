/**
 * What the console's browser tests run against: the real entry point (`infra/processes/tollgate-server.ts`) in a
 * child process — embedded (file event log, memory state, chdb, consumers in-process) or on the
 * real engines (Kafka, Redis, ClickHouse from the environment, each run under its own topic
 * prefix, key prefix and database) — and Debian's Chromium driven by playwright-core.
 * Screenshots go to test-artifacts/console/.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { requireEngineUrl } from '../support/engines.ts';
import { spawnGateway, type GatewayProcess } from '../support/spawn-gateway.ts';

export type { GatewayProcess };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where the screenshots of the console tests are saved. */
export const SCREENSHOT_DIR = join(ROOT, 'test-artifacts', 'console');

/** The Chromium binary: CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** How the gateway under test stores its state. */
export type ConsoleTestMode = 'embedded' | 'engines';

/**
 * Starts `infra/processes/tollgate-server.ts` in demo mode (the mock channel and demo key) with the console admin
 * `login`/`password` from TOLLGATE_ADMIN_USER/TOLLGATE_ADMIN_PASSWORD.
 * @throws Error when it has not printed its address within 60 s or exits early (with its output).
 */
export async function startGatewayProcess(
  mode: ConsoleTestMode,
  admin: { login: string; password: string },
): Promise<GatewayProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    TOLLGATE_DATA_DIR: mkdtempSync(join(tmpdir(), `tollgate-console-${mode}-`)),
    TOLLGATE_ADMIN_USER: admin.login,
    TOLLGATE_ADMIN_PASSWORD: admin.password,
  };
  for (const name of [
    'TOLLGATE_CONFIG',
    'KAFKA_BROKERS',
    'REDIS_URL',
    'CLICKHOUSE_URL',
    'TOLLGATE_CONSUMERS',
    'TOLLGATE_MASTER_KEY',
    'TOLLGATE_KEY_HMAC_SECRET',
  ])
    delete env[name];
  if (mode === 'engines') {
    const run = randomBytes(4).toString('hex');
    Object.assign(env, {
      KAFKA_BROKERS: await requireEngineUrl('KAFKA_BROKERS'),
      REDIS_URL: await requireEngineUrl('REDIS_URL'),
      CLICKHOUSE_URL: await requireEngineUrl('CLICKHOUSE_URL'),
      TOLLGATE_CONSUMERS: 'in-process',
      TOLLGATE_TOPIC_PREFIX: `e2e-${run}.`,
      REDIS_KEY_PREFIX: `e2e-${run}:`,
      CLICKHOUSE_DATABASE: `tollgate_e2e_${run}`,
      TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64'),
      TOLLGATE_KEY_HMAC_SECRET: randomBytes(32).toString('base64'),
    });
  }
  return spawnGateway(env);
}

/**
 * Launches headless Chromium with the flags this machine needs (no GPU, no sandbox as root, no
 * background connections to Google's hosts).
 * @throws Error naming CHROMIUM_PATH when the binary is missing (install Debian's `chromium`).
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
