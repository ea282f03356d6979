/**
 * ClickHouse down, on the production engines: the consumers reach ClickHouse through a TCP relay
 * this test owns, and the relay is shut (every connection refused) while traffic flows. The
 * gateway keeps serving at its usual latency, the consumers keep their offsets, and when the relay
 * opens again they catch up: every request is in consumption_log and billing_lines exactly once.
 * The shared ClickHouse is never stopped. Figures (latency during the outage, recovery time, rows
 * lost) are printed.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnalyticsStore } from '../../../infra/open-adapters.ts';
import { startConsumerPipeline, type RunningConsumerPipeline } from '../../../consumers/start-consumer-pipeline.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../../infra/processes/consumer-pipeline-runners.ts';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import type { PriceEntryConfig } from '../../../schemas/billing/price-book.ts';
import {
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';
import { withoutEngines } from '../../support/engines.ts';

const CHANNELS = [{ id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] }];
const PRICES: PriceEntryConfig[] = [
  { model: 'chat-model', inputPerMTok: 0.3, outputPerMTok: 1.2, effectiveFrom: '2020-01-01T00:00:00Z' },
];

/** A TCP relay to `target` that can be shut (listener closed, live connections destroyed) and opened again on the same port. */
class SwitchableRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async shut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let system: TestSystem;
let relay: SwitchableRelay;
let relayedAnalytics: AnalyticsStore;
let consumers: RunningConsumerPipeline | undefined;

const count = async (table: string): Promise<number> =>
  Number((await system.analytics.query<{ n: string }>(`SELECT toString(count()) AS n FROM ${table} FINAL`))[0]?.n ?? 0);
const distinctRequests = async (): Promise<number> =>
  Number(
    (await system.analytics.query<{ n: string }>('SELECT toString(uniqExact(request_id)) AS n FROM consumption_log'))[0]
      ?.n ?? 0,
  );

async function send(total: number, label: string): Promise<number[]> {
  const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${system.origin}/v1`, maxRetries: 0 });
  const latencies: number[] = [];
  for (let i = 0; i < total; i++) {
    const started = performance.now();
    const reply = await openai.chat.completions.create({
      model: 'chat-model',
      messages: [{ role: 'user', content: `${label} ${i}` }],
    });
    latencies.push(performance.now() - started);
    expect(reply.choices[0]?.message.content).toBe(`Mock reply to: ${label} ${i}`);
  }
  return latencies;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

beforeAll(async () => {
  const settings = await isolatedEngineSettings('production');
  system = await startTestSystem({ settings, channels: CHANNELS, prices: PRICES, consumers: false });
  const target = new URL(settings.clickhouseUrl ?? '');
  relay = new SwitchableRelay({ host: target.hostname, port: Number(target.port) });
  await relay.open();
  relayedAnalytics = openAnalyticsStore({ ...settings, clickhouseUrl: `http://127.0.0.1:${relay.port}` });
  consumers = await startConsumerPipeline({
    runners: CONSUMER_PIPELINE_RUNNERS,
    eventLog: system.eventLog,
    state: system.state,
    analytics: relayedAnalytics,
    log: () => undefined,
    maxBatchSize: 5,
  });
}, 120_000);

afterAll(async () => {
  await consumers?.stop();
  await relay?.shut();
  await relayedAnalytics?.close();
  await system?.close();
}, 60_000);

describe.skipIf(withoutEngines)('ClickHouse outage', () => {
  it('serves at its usual latency, keeps the consumers’ offsets and catches up exactly once', async () => {
    const before = await send(20, 'before');
    await eventually(() => count('consumption_log'), 20, 60_000);

    await relay.shut();
    const during = await send(30, 'during');
    await system.eventLog.flush();
    // The consumers cannot write: nothing new lands while the relay is shut.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await count('consumption_log')).toBe(20);

    const reopenedAt = Date.now();
    await relay.open();
    await eventually(() => count('consumption_log'), 50, 90_000);
    const recoveryMs = Date.now() - reopenedAt;
    await eventually(() => count('billing_lines'), 50, 60_000);
    expect(await distinctRequests()).toBe(50);
    expect(system.outcomes.filter((o) => o.status === 'completed')).toHaveLength(50);
    // Latency during the outage stays that of a healthy gateway (generous bound: a loaded CI machine).
    expect(median(during)).toBeLessThan(Math.max(200, median(before) * 5));
    process.stdout.write(
      `ClickHouse outage: p50 ${median(before).toFixed(1)} ms before, ${median(during).toFixed(1)} ms during; caught up ${recoveryMs} ms after it returned; rows lost 0 of 50\n`,
    );
  }, 240_000);
});
