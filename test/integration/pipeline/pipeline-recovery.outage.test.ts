/**
 * Exactly-once effect under failure, on the production engines (Kafka, Redis, ClickHouse):
 * the consumers process (`infra/processes/tollgate-consumers.ts`) is SIGKILLed in the middle of its batches and
 * restarted, and Kafka is stopped during traffic and restarted — the gateway keeps serving,
 * spools events to disk and drains them. Still exactly N rows, no duplicates, nothing lost, and
 * spend counters equal to the billed lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceEntryConfig } from '../../../schemas/billing/price-book.ts';
import {
  decimalToNano,
  engineEnvironment,
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';
import { withoutEngines } from '../../support/engines.ts';
import { kafkaIsControllable, setKafkaRunning } from '../../support/kafka-control.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHANNELS = [{ id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] }];
const PRICES: PriceEntryConfig[] = [
  { model: 'chat-model', inputPerMTok: 0.3, outputPerMTok: 1.2, effectiveFrom: '2020-01-01T00:00:00Z' },
];

let system: TestSystem;
let consumers: ChildProcess | undefined;
let consumerEnv: NodeJS.ProcessEnv;

function startConsumersProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/processes/tollgate-consumers.ts'], {
    cwd: ROOT,
    env: consumerEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', () => undefined);
  return child;
}

const infra = (verb: 'up' | 'down'): Promise<number> => setKafkaRunning(verb === 'up');

async function send(count: number, label: string): Promise<void> {
  const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${system.origin}/v1`, maxRetries: 0 });
  for (let i = 0; i < count; i++) {
    const reply = await openai.chat.completions.create({
      model: 'chat-model',
      messages: [{ role: 'user', content: `${label} ${i}` }],
    });
    expect(reply.choices[0]?.message.content).toBe(`Mock reply to: ${label} ${i}`);
  }
}

const rowCount = async (): Promise<number> =>
  Number(
    (await system.analytics.query<{ n: string }>('SELECT toString(count()) AS n FROM consumption_log FINAL'))[0]?.n ??
      0,
  );
const distinctRequests = async (): Promise<number> =>
  Number(
    (await system.analytics.query<{ n: string }>('SELECT toString(uniqExact(request_id)) AS n FROM consumption_log'))[0]
      ?.n ?? 0,
  );

beforeAll(async () => {
  const settings = await isolatedEngineSettings('production');
  expect(
    kafkaIsControllable(settings.kafkaBrokers ?? []),
    "this test stops the run's Kafka; KAFKA_BROKERS must point at it",
  ).toBe(true);
  system = await startTestSystem({ settings, channels: CHANNELS, prices: PRICES, consumers: false });
  const configPath = join(settings.dataDir, 'consumers.json');
  writeFileSync(configPath, JSON.stringify({ prices: PRICES }));
  consumerEnv = {
    ...process.env,
    ...engineEnvironment(settings),
    TOLLGATE_CONFIG: configPath,
    TOLLGATE_CONSUMER_BATCH_SIZE: '3',
  };
}, 60_000);

afterAll(async () => {
  consumers?.kill('SIGKILL');
  await system?.close();
}, 60_000);

describe.skipIf(withoutEngines)('exactly-once effect under failure', () => {
  it('survives a consumer killed mid-batch and restarted', async () => {
    await send(60, 'before kill');
    await system.eventLog.flush();
    consumers = startConsumersProcess();
    // Kill it while it is part-way through the backlog (batches of 3).
    await eventually(async () => (await rowCount()) > 0, true, 60_000);
    consumers.kill('SIGKILL');
    const atKill = await rowCount();
    expect(atKill).toBeLessThan(60);
    consumers = startConsumersProcess();
    await eventually(rowCount, 60, 60_000);
    expect(await distinctRequests()).toBe(60);
  }, 150_000);

  it('survives Kafka stopped during traffic and restarted', async () => {
    await infra('down');
    try {
      await send(15, 'during outage');
      await system.eventLog.flush();
      expect(system.eventLog.status().spooled).toBeGreaterThan(0);
    } finally {
      await infra('up');
    }
    await send(5, 'after outage');
    await eventually(rowCount, 80, 90_000);
    expect(await distinctRequests()).toBe(80);
    // The billing consumer is its own group: it may still be catching up when the ledger is done.
    const billingLines = async () =>
      Number(
        (await system.analytics.query<{ n: string }>('SELECT toString(count()) AS n FROM billing_lines FINAL'))[0]?.n ??
          0,
      );
    await eventually(billingLines, 80, 60_000);
    const lines = await system.analytics.query<{ cost: string }>(
      'SELECT toString(cost_usd) AS cost FROM billing_lines FINAL',
    );
    expect(lines).toHaveLength(80);
    const total = lines.reduce((sum, l) => sum + decimalToNano(l.cost), 0n);
    const keyId = system.outcomes[0]?.keyId ?? '';
    await eventually(
      async () => (await system.state.getSpend(keyId, null)).keyNanoUsd.toString(),
      total.toString(),
      30_000,
    );
  }, 180_000);
});
