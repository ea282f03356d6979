/**
 * Prices set at run time are billed. On both engine sets (embedded: file log, memory, chdb;
 * production: Kafka, Redis, ClickHouse 18.16) a gateway serves a model priced in its config file
 * (from the epoch); `tollgate prices set` (the CLI, as a child process, through the admin API) sets one, in force from then on;
 * the requests after it are priced to the nano-dollar in consumption_log, billing_lines and the
 * spend counter, by the consumers that follow the config topic. A second price set later applies
 * to the requests after it and leaves the earlier ones as they were billed. Who set each price is
 * in config_audit (`bootstrap-token` for TOLLGATE_ADMIN_TOKEN).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decimalToNano,
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  ENGINE_SETS,
  type EngineSet,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';

const CLI = join(import.meta.dirname, '../../../infra/processes/tollgate-cli.ts');
const ADMIN_TOKEN = 'runtime-prices-admin-token-0123456789';
const MODEL = 'runtime-model';

/** Runs `tollgate …args` against the system's admin API; resolves with its exit code and output. */
function tollgate(system: TestSystem, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, TOLLGATE_URL: system.origin, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

interface PricedRow {
  request_id: string;
  input_tokens: string;
  output_tokens: string;
  cost: string;
}

/** Sends `count` chat requests; returns their request ids (x-request-id). */
async function send(system: TestSystem, count: number, label: string): Promise<string[]> {
  const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${system.origin}/v1`, maxRetries: 0 });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { response } = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: `${label} request ${i} ${'word '.repeat(i)}` }] })
      .withResponse();
    ids.push(response.headers.get('x-request-id') ?? '');
  }
  return ids;
}

/** Cost by hand: tokens × USD per MTok, in nano-USD (both prices are whole USD, so exact). */
function expectedNano(row: PricedRow, inputUsdPerMTok: bigint, outputUsdPerMTok: bigint): bigint {
  return BigInt(row.input_tokens) * inputUsdPerMTok * 1_000n + BigInt(row.output_tokens) * outputUsdPerMTok * 1_000n;
}

describe.each<EngineSet>(ENGINE_SETS)('prices set at run time on %s engines', (engines) => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await startTestSystem({
      settings: await isolatedEngineSettings(engines),
      channels: [{ id: 'runtime-ch', provider: 'mock', protocol: 'openai-chat', models: [MODEL] }],
      prices: [{ model: MODEL, inputPerMTok: 0.5, outputPerMTok: 0.5, effectiveFrom: '1970-01-01T00:00:00Z' }],
      adminToken: ADMIN_TOKEN,
    });
  }, 120_000);

  afterAll(async () => {
    await system?.close();
  });

  it('bills every request after `tollgate prices set` at that price, to the nano-dollar', async () => {
    const set = await tollgate(system, ['prices', 'set', '--model', MODEL, '--input', '1000', '--output', '2000']);
    expect(set.code, set.output).toBe(0);
    const first = await send(system, 10, 'first');
    const raised = await tollgate(system, ['prices', 'set', '--model', MODEL, '--input', '3000', '--output', '5000']);
    expect(raised.code, raised.output).toBe(0);
    const second = await send(system, 5, 'second');
    expect(new Set([...first, ...second]).size).toBe(15);

    const query = (table: string) =>
      system.analytics.query<PricedRow>(
        `SELECT request_id, toString(input_tokens) AS input_tokens, toString(output_tokens) AS output_tokens, toString(cost_usd) AS cost FROM ${table} FINAL WHERE model = '${MODEL}' ORDER BY request_id`,
      );
    await eventually(
      async () => [(await query('consumption_log')).length, (await query('billing_lines')).length],
      [15, 15],
      60_000,
    );
    let total = 0n;
    for (const table of ['consumption_log', 'billing_lines']) {
      const rows = await query(table);
      for (const row of rows) {
        const [input, output] = first.includes(row.request_id) ? [1000n, 2000n] : [3000n, 5000n];
        expect(second.includes(row.request_id) || first.includes(row.request_id)).toBe(true);
        expect(BigInt(row.input_tokens)).toBeGreaterThan(0n);
        expect({ table, request: row.request_id, nano: decimalToNano(row.cost) }).toEqual({
          table,
          request: row.request_id,
          nano: expectedNano(row, input, output),
        });
        if (table === 'billing_lines') total += decimalToNano(row.cost);
      }
    }
    const lines = await system.analytics.query<{ priced: string }>(
      `SELECT toString(min(priced)) AS priced FROM billing_lines FINAL WHERE model = '${MODEL}'`,
    );
    expect(lines[0]?.priced).toBe('1');
    const keyId = system.outcomes.find((o) => o.model === MODEL)?.keyId ?? '';
    await eventually(
      async () => (await system.state.getSpend(keyId, null)).keyNanoUsd.toString(),
      total.toString(),
      30_000,
    );
  }, 120_000);

  it('makes a spend quota trip once the run-time price is billed', async () => {
    const created = await fetch(`${system.origin}/admin/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'quota-key', quotaUsd: 0.01 }),
    });
    expect(created.status).toBe(201);
    const { apiKey } = (await created.json()) as { apiKey: string };
    const openai = new OpenAI({ apiKey, baseURL: `${system.origin}/v1`, maxRetries: 0 });
    // One request costs several cents at 3000/5000 USD per million tokens: over the quota once billed.
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'spend it all' }] });
    const refusal = async () =>
      openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'and more' }] }).then(
        () => 200,
        (error: { status?: number; code?: string }) => `${error.status} ${error.code}`,
      );
    await eventually(refusal, '429 insufficient_quota', 30_000);
  }, 60_000);

  it('records who set each price in config_audit', async () => {
    const audit = () =>
      system.analytics.query<{ actor: string; input: string }>(
        `SELECT actor, visitParamExtractRaw(changes, 'inputPerMTok') AS input FROM config_audit FINAL WHERE event_type = 'PriceSet' AND visitParamExtractString(changes, 'model') = '${MODEL}' ORDER BY occurred_at_ms, input`,
      );
    await eventually(async () => (await audit()).length, 3, 30_000);
    expect(await audit()).toEqual([
      { actor: 'config-file', input: '0.5' },
      { actor: 'bootstrap-token', input: '1000' },
      { actor: 'bootstrap-token', input: '3000' },
    ]);
  });
});
