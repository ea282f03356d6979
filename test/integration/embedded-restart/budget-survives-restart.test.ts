/**
 * Embedded mode (`npm start` with no engines): a budget window's spend survives restarts like the
 * spend counters. A team's daily budget is spent until its `budget_exceeded` 429; after `kill -9`
 * (no snapshot: the window is rebuilt from the file log) and after SIGTERM (from the snapshot
 * written at close), the first request of the team's key is refused again. Runs the real entry
 * point in child processes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, withoutEngineVariables, type GatewayProcess } from '../../support/spawn-gateway.ts';

const ADMIN_TOKEN = 'embedded-budget-admin-token-0123456789';
/** USD per million tokens: a "Hello" chat costs about $0.01. */
const PRICE_PER_MTOK = 500;

let env: NodeJS.ProcessEnv = {};
let gateway: GatewayProcess | undefined;
let apiKey = '';

beforeAll(() => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-budget-restart-'));
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
    LOG_LEVEL: 'info',
    TOLLGATE_LOG_FORMAT: 'json',
    TOLLGATE_CONFIG: configPath,
    TOLLGATE_DATA_DIR: dataDir,
    TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    TOLLGATE_CONSUMER_BATCH_WAIT_MS: '0',
  };
});

afterAll(async () => {
  await gateway?.stop();
});

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

async function chat(max_tokens = 16): Promise<{ status: number; body: string; code: string | null }> {
  const response = await fetch(`${gateway!.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', max_tokens, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  return { status: response.status, body: await response.text(), code: response.headers.get('x-tollgate-error-code') };
}

/** The first request after a restart: the budget's 429. */
async function expectBudget429(): Promise<void> {
  const { status, body, code } = await chat();
  expect(status, body).toBe(429);
  expect(code).toBe('budget_exceeded');
  expect(JSON.parse(body)).toMatchObject({ error: { code: 'budget_exceeded' } });
}

describe('embedded mode: a budget window across restarts', () => {
  it('spends a team budget until budget_exceeded, which holds after kill -9 and after SIGTERM', async () => {
    gateway = await spawnGateway(env);
    const team = await admin('POST', '/teams', { name: 'restart team' });
    await admin('POST', '/budgets', {
      name: 'restart daily',
      scope: 'team',
      scopeId: team.team.teamId,
      limitUsd: 0.05,
      period: 'day',
    });
    apiKey = (await admin('POST', '/keys', { name: 'team key', teamId: team.team.teamId })).apiKey;
    let served = 0;
    for (;;) {
      const answer = await chat();
      if (answer.status === 429) break;
      expect(answer.status, answer.body).toBe(200);
      served += 1;
      expect(served).toBeLessThan(50);
    }
    expect(served).toBeGreaterThan(0);
    // Let the consumers bill every request (the holds become spend), then stop hard: no snapshot.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await expectBudget429();
    gateway.kill('SIGKILL');
    expect((await gateway.exited).signal).toBe('SIGKILL');
    gateway = await spawnGateway(env);
    await expectBudget429();
    await gateway.stop();
    expect((await gateway.exited).code).toBe(0);
    gateway = await spawnGateway(env);
    await expectBudget429();
  }, 120_000);
});
