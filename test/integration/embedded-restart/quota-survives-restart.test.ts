/**
 * Embedded mode (`npm start` with no KAFKA_BROKERS/REDIS_URL/CLICKHOUSE_URL): spend quotas hold
 * across restarts. The in-process state store is rebuilt from the file log (and its snapshot)
 * before the node admits a request, so the first request after a restart of a key that spent its
 * quota gets the quota's 429, and the console shows the spend again. Exercised: SIGTERM (a
 * snapshot written at close), `kill -9` with no snapshot (full rebuild), `kill -9` after more
 * spend than the snapshot covers (snapshot plus the log after it), and a corrupt snapshot
 * (ignored with a warning, full rebuild). Runs the real entry point in child processes.
 */
import { mkdtempSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, withoutEngineVariables, type GatewayProcess } from '../../support/spawn-gateway.ts';

const ADMIN_TOKEN = 'embedded-restart-admin-token-0123456789';
const LOGIN = 'restart-admin';
const PASSWORD = 'restart-admin-password';
/** USD per million tokens: a "Hello" chat costs about $0.01 (o200k counts of the mock's prompt and answer). */
const PRICE_PER_MTOK = 500;

let dataDir = '';
let env: NodeJS.ProcessEnv = {};
let gateway: GatewayProcess | undefined;
let apiKey = '';
let keyId = '';
let sessionCookie: { origin: string; cookie: string } | undefined;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tollgate-restart-'));
  const configPath = join(dataDir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      channels: [{ id: 'mock-main', provider: 'mock', models: ['mock-1'] }],
      prices: [{ model: 'mock-1', inputPerMTok: PRICE_PER_MTOK, outputPerMTok: PRICE_PER_MTOK }],
    }),
  );
  env = {
    ...withoutEngineVariables(process.env, ['TOLLGATE_TOPIC_PREFIX']),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.RESTART_TEST_LOG_LEVEL ?? 'info',
    TOLLGATE_LOG_FORMAT: 'json',
    TOLLGATE_CONFIG: configPath,
    TOLLGATE_DATA_DIR: dataDir,
    TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    TOLLGATE_ADMIN_USER: LOGIN,
    TOLLGATE_ADMIN_PASSWORD: PASSWORD,
    TOLLGATE_CONSUMER_BATCH_WAIT_MS: '0',
  };
});

afterAll(async () => {
  await gateway?.stop();
});

/** One chat request with the quota key: its status and body. */
async function chat(): Promise<{ status: number; body: string }> {
  const response = await fetch(`${gateway!.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'Hello' }] }),
  });
  return { status: response.status, body: await response.text() };
}

/** An admin API call (Authorization: Bearer TOLLGATE_ADMIN_TOKEN); fails the test on a non-2xx answer. */
async function admin(method: 'POST' | 'PATCH', path: string, body: unknown): Promise<any> {
  const response = await fetch(`${gateway!.origin}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  expect(response.status, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

/** The key's spend as the console shows it (`spentUsd` of GET /console/api/keys), signed in as the admin. */
async function consoleSpentUsd(): Promise<string> {
  // Sign-in is limited to 5 a minute per login: once per process (sessions live in its memory).
  if (!sessionCookie || sessionCookie.origin !== gateway!.origin) {
    const session = await fetch(`${gateway!.origin}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: LOGIN, password: PASSWORD }),
    });
    expect(session.status).toBe(200);
    sessionCookie = { origin: gateway!.origin, cookie: (session.headers.get('set-cookie') ?? '').split(';')[0]! };
  }
  const { cookie } = sessionCookie;
  const keys = (await (await fetch(`${gateway!.origin}/console/api/keys`, { headers: { cookie } })).json()) as {
    keys: Array<{ keyId: string; spentUsd: string }>;
  };
  return keys.keys.find((key) => key.keyId === keyId)!.spentUsd;
}

/**
 * The key's spend once the billing consumer has caught up with the requests served (the counters
 * trail them by its lag): the console's value after it stayed the same for 2 s.
 */
async function settledSpentUsd(): Promise<string> {
  let last = await consoleSpentUsd();
  let since = Date.now();
  while (Date.now() - since < 2000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await consoleSpentUsd();
    if (now !== last) [last, since] = [now, Date.now()];
  }
  return last;
}

/** Sets the key's quota to what it has spent plus `usd`, so that more requests are served before the next 429. */
async function raiseQuotaBy(usd: number): Promise<void> {
  const spent = Number(await settledSpentUsd());
  await admin('PATCH', `/keys/${keyId}`, { quotaUsd: (spent + usd).toFixed(6) });
}

/** Sends requests until the quota's 429 comes (the billing consumer has applied the spend); returns how many were served. */
async function spendUntilQuota(): Promise<number> {
  let served = 0;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { status, body } = await chat();
    if (status === 429) {
      expect(body).toContain('insufficient_quota');
      return served;
    }
    expect(status, body).toBe(200);
    served += 1;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no quota 429 within 60 s after ${served} requests`);
}

/** The first request after a restart: the quota's 429, in OpenAI's format, not retryable. */
async function expectQuota429(): Promise<void> {
  const { status, body } = await chat();
  expect(status, body).toBe(429);
  expect(JSON.parse(body)).toMatchObject({ error: { code: 'insufficient_quota' } });
}

/** The "rebuilt from the event log" line of the current process. */
function rebuildLine(): { fromSnapshot: boolean; records: number } {
  const line = gateway!
    .output()
    .split('\n')
    .find((text) => text.includes('state store: rebuilt from the event log'));
  expect(line, gateway!.output()).toBeDefined();
  return JSON.parse(line!) as { fromSnapshot: boolean; records: number };
}

async function killHard(): Promise<void> {
  gateway!.kill('SIGKILL');
  expect((await gateway!.exited).signal).toBe('SIGKILL');
}

const snapshotPath = (): string => join(dataDir, 'state', 'memory-state.json');

describe('embedded mode: spend quotas across restarts', () => {
  it('spends past a small quota until the quota 429 comes', async () => {
    gateway = await spawnGateway(env);
    const created = await admin('POST', '/keys', { name: 'small-quota', quotaUsd: '0.03' });
    apiKey = created.apiKey;
    keyId = created.key.keyId;
    expect(await spendUntilQuota()).toBeGreaterThan(0);
    expect(Number(await consoleSpentUsd())).toBeGreaterThanOrEqual(0.03);
  }, 90_000);

  it('kill -9, then start again with no snapshot: full rebuild, the next request gets the 429, the console shows the spend', async () => {
    const spent = await settledSpentUsd();
    await killHard();
    expect(existsSync(snapshotPath())).toBe(false);
    gateway = await spawnGateway(env);
    await expectQuota429();
    expect(rebuildLine()).toMatchObject({ fromSnapshot: false });
    expect(rebuildLine().records).toBeGreaterThan(0);
    expect(await consoleSpentUsd()).toBe(spent);
  }, 90_000);

  it('SIGTERM, then start again: the snapshot written at close is used, the 429 holds, the spend is shown', async () => {
    await raiseQuotaBy(0.03);
    expect(await spendUntilQuota()).toBeGreaterThan(0);
    const spent = await settledSpentUsd();
    await gateway!.stop();
    expect((await gateway!.exited).code).toBe(0);
    expect(existsSync(snapshotPath())).toBe(true);
    gateway = await spawnGateway(env);
    await expectQuota429();
    expect(rebuildLine()).toMatchObject({ fromSnapshot: true, records: 0 });
    expect(await consoleSpentUsd()).toBe(spent);
  }, 90_000);

  it('kill -9 after more spend than the snapshot covers: snapshot plus the log after it', async () => {
    await raiseQuotaBy(0.03);
    expect(await spendUntilQuota()).toBeGreaterThan(0);
    const spent = await settledSpentUsd();
    await killHard();
    gateway = await spawnGateway(env);
    await expectQuota429();
    expect(rebuildLine().fromSnapshot).toBe(true);
    expect(rebuildLine().records, gateway.output()).toBeGreaterThan(0);
    expect(await consoleSpentUsd()).toBe(spent);
  }, 90_000);

  it('a corrupt snapshot is ignored with a warning: full rebuild, same spend', async () => {
    const spent = await settledSpentUsd();
    await killHard();
    writeFileSync(snapshotPath(), '{"format":"tollgate.memory-state","version":1,"state":');
    gateway = await spawnGateway(env);
    await expectQuota429();
    expect(gateway.output()).toContain('state store: snapshot unusable');
    expect(rebuildLine().fromSnapshot).toBe(false);
    expect(await consoleSpentUsd()).toBe(spent);
  }, 90_000);
});
