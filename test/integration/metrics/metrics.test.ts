/**
 * Every Prometheus family moves with real traffic through the real app on loopback, on the
 * embedded engines (file event log, memory state store, chdb): the gateway's /metrics is scraped
 * before and after a success, a stream, a failover, an upstream failure, RPM / quota / channel
 * refusals and a stream held open; the consumers' listener (serve-metrics-http.ts) shows the cost
 * billed and a lag that rises while the consumers are stopped and falls once they catch up; the
 * control-plane lag rises while a config follower is stopped and falls after it resumes; and, as
 * `npm start` runs them, the consumer thread's families appear in the gateway's /metrics.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ConsumerMetrics } from '../../../consumers/metrics/consumer-metrics.ts';
import {
  metricsListenFromEnv,
  serveMetricsHttp,
  type MetricsServer,
} from '../../../consumers/metrics/serve-metrics-http.ts';
import { startConsumerPipeline, type RunningConsumerPipeline } from '../../../consumers/start-consumer-pipeline.ts';
import { buildApp } from '../../../gateway/app.ts';
import { testAppDeps } from '../../support/test-app-deps.ts';
import { parseConfigFile } from '../../../gateway/config/load-config.ts';
import type { ControlPlane } from '../../../gateway/control-plane/local-control-plane.ts';
import { GatewayMetrics } from '../../../gateway/metrics/gateway-metrics.ts';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { joinControlPlane } from '../../../gateway/start-gateway-node.ts';
import { createFileLogWriteSignal } from '../../../infra/event-log/file/file-log-write-signal.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import {
  openAnalyticsStore,
  openEventLog,
  openRateLimiter,
  openSessionStore,
  openStateStore,
  type EngineSettings,
} from '../../../infra/open-adapters.ts';
import { startConsumerThread, type RunningConsumerThread } from '../../../infra/processes/consumer-thread.ts';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import type { ConfigFollower } from '../../../schemas/control-plane/config-follower.ts';
import { startConfigFollower } from '../../../infra/control-plane/config-follower.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../../infra/processes/consumer-pipeline-runners.ts';
import { CONFIG_TOPIC } from '../../../schemas/topics.ts';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import type { StateStore } from '../../../schemas/state-store/state-store.ts';
import { parsePrometheusText, sampleSum, type PrometheusSample } from '../../support/prometheus-text.ts';
import { freePort } from '../../support/free-port.ts';
import { startTestGateway, TEST_KEY } from '../../support/start-gateway.ts';

const ADMIN = 'metrics-test-admin-token-0001';
const FOLLOWER_ID = 'metrics-test-follower';
const GROUP_PREFIX = 'metrics-test.';

/** An OpenAI-compatible upstream whose streams send one delta, then wait for `release()` before the usage and [DONE]. */
interface HeldUpstream {
  readonly baseUrl: string;
  /** Resolves once a stream is open (its first delta sent). */
  opened(): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

async function startHeldUpstream(): Promise<HeldUpstream> {
  let onOpen: () => void = () => undefined;
  let open = new Promise<void>((resolve) => (onOpen = resolve));
  const waiting: ServerResponse[] = [];
  const chunk = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`;
  const base = { id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1, model: 'held-model' };
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Held' }, finish_reason: null }] }),
    );
    waiting.push(res);
    onOpen();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    opened: () => open,
    release() {
      for (const res of waiting.splice(0)) {
        res.write(chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
        res.write(
          chunk({
            ...base,
            choices: [],
            usage: {
              prompt_tokens: 10,
              completion_tokens: 3,
              total_tokens: 13,
              prompt_tokens_details: { cached_tokens: 4 },
              completion_tokens_details: { reasoning_tokens: 2 },
            },
          }),
        );
        res.end('data: [DONE]\n\n');
      }
      open = new Promise<void>((resolve) => (onOpen = resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let held: HeldUpstream;
let settings: EngineSettings;
let eventLog: EventLog;
let state: StateStore;
let analytics: AnalyticsStore;
let controlPlane: ControlPlane;
let node: ConfigFollower;
let follower: ConfigFollower | undefined;
let dispatcher: Agent;
let app: FastifyInstance;
let origin: string;
let gatewayMetrics: GatewayMetrics;
let consumerMetrics: ConsumerMetrics;
let consumerServer: MetricsServer;
let pipeline: RunningConsumerPipeline | undefined;
let thread: RunningConsumerThread | undefined;
const keys: Record<string, string> = {};

async function scrape(url: string): Promise<PrometheusSample[]> {
  const response = await request(url);
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain/);
  return parsePrometheusText(await response.body.text());
}

const scrapeGateway = (): Promise<PrometheusSample[]> => scrape(`${origin}/metrics`);
const scrapeConsumers = (): Promise<PrometheusSample[]> => scrape(`${consumerServer.address}/metrics`);

async function chat(
  model: string,
  key = keys.plain!,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; text: string }> {
  const response = await request(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

async function admin(method: 'POST' | 'PUT', path: string, body: unknown): Promise<any> {
  const response = await request(`${origin}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.body.json()) as any;
  expect(response.statusCode, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

/** Polls `read` until `accept` holds for what it returns; throws with the last value after `timeoutMs`. */
async function until<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`until: condition not met, last value ${JSON.stringify(last)}`);
}

beforeAll(async () => {
  mock = await startMockUpstream();
  held = await startHeldUpstream();
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-metrics-'));
  settings = { dataDir, fileLogWriteSignal: { signal: createFileLogWriteSignal(), side: 'writer' } };
  const config = parseConfigFile(
    {
      keys: [{ name: 'test', key: TEST_KEY }],
      channels: [
        { id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] },
        {
          id: 'broken',
          provider: 'mock',
          protocol: 'openai-chat',
          models: ['flaky-model', 'down-model'],
          priority: 10,
          mock: { failStatus: 503 },
        },
        { id: 'backup', provider: 'mock', protocol: 'openai-chat', models: ['flaky-model'] },
        {
          id: 'held',
          provider: 'openai',
          protocol: 'openai-chat',
          baseUrl: held.baseUrl,
          apiKey: 'k',
          models: ['held-model'],
        },
        { id: 'tiny', provider: 'mock', protocol: 'openai-chat', models: ['tiny-model'] },
      ],
      prices: [{ model: 'chat-model', inputPerMTok: 1000, outputPerMTok: 2000, effectiveFrom: '2020-01-01T00:00:00Z' }],
    },
    { LOG_LEVEL: 'silent', TOLLGATE_ADMIN_TOKEN: ADMIN, TOLLGATE_DATA_DIR: dataDir },
  );
  eventLog = openEventLog(settings);
  ({ controlPlane, node } = await joinControlPlane(config, eventLog, {
    log: () => undefined,
    env: process.env,
    startConfigFollower,
    print: () => undefined,
  }));
  state = openStateStore(settings);
  analytics = openAnalyticsStore(settings);
  dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  gatewayMetrics = new GatewayMetrics({ processMetrics: true });
  follower = await startConfigFollower({
    eventLog,
    projection: { applyBatch: () => undefined },
    log: () => undefined,
    nodeId: FOLLOWER_ID,
  });
  await follower.ready();
  gatewayMetrics.watchConfigFollower({ eventLog, groupId: follower.groupId, topic: CONFIG_TOPIC });
  app = await buildApp(
    config,
    testAppDeps(config, {
      dispatcher,
      logger: false,
      mockBaseUrl: mock.baseUrl,
      eventLog,
      controlPlane,
      stateStore: state,
      limiter: openRateLimiter(settings),
      sessionStore: openSessionStore(settings),
      metrics: gatewayMetrics,
    }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  consumerMetrics = new ConsumerMetrics({ processMetrics: false });
  consumerServer = await serveMetricsHttp(
    { host: '127.0.0.1', port: 0 },
    () => consumerMetrics.render(),
    consumerMetrics.registry.contentType,
  );
  pipeline = await startConsumerPipeline({
    runners: CONSUMER_PIPELINE_RUNNERS,
    eventLog,
    state,
    analytics,
    log: () => undefined,
    groupPrefix: GROUP_PREFIX,
    onCost: consumerMetrics.recordCost,
  });
  consumerMetrics.watchConsumerGroups(eventLog, pipeline.groups);
  await admin('PUT', '/channels/tiny', { provider: 'mock', protocol: 'openai-chat', models: ['tiny-model'], rpm: 1 });
  keys.plain = (await admin('POST', '/keys', { name: 'plain' })).apiKey;
  keys.rpm = (await admin('POST', '/keys', { name: 'rpm', rpm: 1 })).apiKey;
  keys.quota = (await admin('POST', '/keys', { name: 'quota', quotaUsd: '0.000001' })).apiKey;
  const quotaKey = controlPlane.view.keys().find((k) => k.name === 'quota')!;
  await state.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '1' }, quotaKey.keyId, null, 5_000n);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await eventLog?.flush();
  await thread?.stop();
  await pipeline?.stop();
  await follower?.stop();
  await node?.stop();
  await consumerServer?.close();
  await eventLog?.close();
  await state?.close();
  await analytics?.close();
  await dispatcher?.close();
  await held?.close();
  await mock?.close();
}, 60_000);

describe('the gateway /metrics', () => {
  let before: PrometheusSample[];
  let during: PrometheusSample[];
  let after: PrometheusSample[];

  beforeAll(async () => {
    before = await scrapeGateway();
    expect((await chat('chat-model')).status).toBe(200);
    expect(
      (await chat('chat-model', keys.plain, { stream: true, stream_options: { include_usage: true } })).status,
    ).toBe(200);
    expect((await chat('flaky-model')).status).toBe(200);
    expect((await chat('down-model')).status).toBe(503);
    expect((await chat('no-such-model')).status).toBe(404);
    expect((await chat('chat-model', keys.rpm)).status).toBe(200);
    expect((await chat('chat-model', keys.rpm)).status).toBe(429);
    expect((await chat('chat-model', keys.quota)).status).toBe(429);
    expect((await chat('tiny-model')).status).toBe(200);
    expect((await chat('tiny-model')).status).toBe(429);
    const streaming = chat('held-model', keys.plain, { stream: true, stream_options: { include_usage: true } });
    await held.opened();
    during = await scrapeGateway();
    held.release();
    expect((await streaming).status).toBe(200);
    after = await until(
      scrapeGateway,
      (samples) => (sampleSum(samples, 'tollgate_requests_total', { model: 'held-model' }) ?? 0) > 0,
    );
  }, 60_000);

  const grew = (name: string, labels: Record<string, string> = {}): void => {
    expect(sampleSum(after, name, labels) ?? 0, `${name} ${JSON.stringify(labels)}`).toBeGreaterThan(
      sampleSum(before, name, labels) ?? 0,
    );
  };

  it('counts requests by format, model, channel and status; an unknown model is `none`', () => {
    grew('tollgate_requests_total', { format: 'openai-chat', model: 'chat-model', channel: 'steady', status: '200' });
    grew('tollgate_requests_total', { model: 'flaky-model', channel: 'backup', status: '200' });
    grew('tollgate_requests_total', { model: 'down-model', channel: 'broken', status: '503' });
    grew('tollgate_requests_total', { model: 'none', channel: 'none', status: '404' });
    expect(after.some((s) => s.labels.model === 'no-such-model')).toBe(false);
  });

  it('observes latency and time to first token', () => {
    grew('tollgate_request_duration_seconds_count', { format: 'openai-chat', model: 'chat-model' });
    grew('tollgate_request_duration_seconds_bucket', { model: 'chat-model', le: '+Inf' });
    grew('tollgate_request_duration_seconds_sum', { model: 'held-model' });
    grew('tollgate_time_to_first_token_seconds_count', { format: 'openai-chat', model: 'held-model' });
    grew('tollgate_time_to_first_token_seconds_count', { model: 'chat-model' });
  });

  it('counts input, output, cached and reasoning tokens by model and channel', () => {
    for (const type of ['input', 'output'])
      grew('tollgate_tokens_total', { model: 'chat-model', channel: 'steady', type });
    expect(sampleSum(after, 'tollgate_tokens_total', { model: 'held-model', channel: 'held', type: 'cached' })).toBe(4);
    expect(sampleSum(after, 'tollgate_tokens_total', { model: 'held-model', channel: 'held', type: 'reasoning' })).toBe(
      2,
    );
  });

  it('counts upstream errors by kind and channel, and failovers from the channel left', () => {
    grew('tollgate_upstream_errors_total', { kind: 'upstream-unavailable', channel: 'broken' });
    // Both requests to `broken` failed there (flaky-model, then down-model).
    expect(
      (sampleSum(after, 'tollgate_upstream_errors_total', { channel: 'broken' }) ?? 0) -
        (sampleSum(before, 'tollgate_upstream_errors_total', { channel: 'broken' }) ?? 0),
    ).toBe(2);
    // flaky-model moved on to `backup`; down-model had nowhere to go: one failover.
    expect(
      (sampleSum(after, 'tollgate_failovers_total', { channel: 'broken', kind: 'upstream-unavailable' }) ?? 0) -
        (sampleSum(before, 'tollgate_failovers_total', { channel: 'broken', kind: 'upstream-unavailable' }) ?? 0),
    ).toBe(1);
  });

  it('counts refusals by format and limit: key RPM, key quota, every channel at its limit', () => {
    grew('tollgate_admission_refusals_total', { format: 'openai-chat', limit: 'key_rpm' });
    grew('tollgate_admission_refusals_total', { format: 'openai-chat', limit: 'key_quota' });
    grew('tollgate_admission_refusals_total', { format: 'openai-chat', limit: 'channel' });
  });

  it('shows a stream held open as a live stream, and not after it ended', () => {
    expect(sampleSum(during, 'tollgate_live_streams', { format: 'openai-chat' })).toBe(1);
    expect(sampleSum(after, 'tollgate_live_streams', { format: 'openai-chat' })).toBe(0);
  });

  it("reads the event log's publisher at scrape time", () => {
    expect(sampleSum(after, 'tollgate_event_log_connected')).toBe(1);
    expect(sampleSum(after, 'tollgate_event_log_spooled_records')).toBe(0);
  });

  it('shows events queued and spooled, and the publisher disconnected, while Kafka is unreachable', async () => {
    const deadKafka = createKafkaEventLog({
      brokers: [`127.0.0.1:${await freePort()}`],
      spoolDir: mkdtempSync(join(tmpdir(), 'tollgate-metrics-spool-')),
    });
    const second = await startTestGateway(
      { channels: [{ id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] }] },
      { mockBaseUrl: mock.baseUrl, eventLog: deadKafka, metrics: new GatewayMetrics() },
    );
    try {
      const scrapeSecond = (): Promise<PrometheusSample[]> => scrape(`${second.origin}/metrics`);
      const waiting = (samples: PrometheusSample[]): number =>
        (sampleSum(samples, 'tollgate_event_log_pending_records') ?? 0) +
        (sampleSum(samples, 'tollgate_event_log_spooled_records') ?? 0);
      expect(waiting(await scrapeSecond())).toBe(0);
      const response = await request(`${second.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'chat-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.statusCode).toBe(200);
      await response.body.dump();
      const queued = await until(scrapeSecond, (samples) => waiting(samples) > 0);
      expect(sampleSum(queued, 'tollgate_event_log_connected')).toBe(0);
    } finally {
      await second.close();
      await deadKafka.close();
    }
  }, 60_000);

  it('has the process metrics', () => {
    grew('process_cpu_seconds_total');
    expect(sampleSum(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });
});

describe('lags and cost', () => {
  it('the control-plane lag rises while a config follower is stopped and falls once it resumes', async () => {
    expect(sampleSum(await scrapeGateway(), 'tollgate_control_plane_lag_offsets')).toBe(0);
    await follower!.stop();
    await admin('POST', '/keys', { name: 'while-stopped' });
    expect(sampleSum(await scrapeGateway(), 'tollgate_control_plane_lag_offsets')).toBeGreaterThan(0);
    follower = await startConfigFollower({
      eventLog,
      projection: { applyBatch: () => undefined },
      log: () => undefined,
      nodeId: FOLLOWER_ID,
    });
    await until(scrapeGateway, (samples) => sampleSum(samples, 'tollgate_control_plane_lag_offsets') === 0);
  }, 60_000);

  it('the consumers count the cost billed, and their lag rises with unconsumed events and falls after', async () => {
    const ledger = { group: `${GROUP_PREFIX}ledger`, topic: 'tollgate.requests' };
    const caughtUp = await until(
      scrapeConsumers,
      (samples) =>
        sampleSum(samples, 'tollgate_consumer_lag_offsets', ledger) === 0 &&
        (sampleSum(samples, 'tollgate_cost_usd_total', { model: 'chat-model' }) ?? 0) > 0,
    );
    const cost = sampleSum(caughtUp, 'tollgate_cost_usd_total', { model: 'chat-model' })!;
    await pipeline!.stop();
    expect((await chat('chat-model')).status).toBe(200);
    await eventLog.flush();
    const behind = await scrapeConsumers();
    expect(sampleSum(behind, 'tollgate_consumer_lag_offsets', ledger)).toBeGreaterThan(0);
    expect(
      sampleSum(behind, 'tollgate_consumer_lag_offsets', { group: `${GROUP_PREFIX}billing`, topic: 'tollgate.usage' }),
    ).toBeGreaterThan(0);
    pipeline = await startConsumerPipeline({
      runners: CONSUMER_PIPELINE_RUNNERS,
      eventLog,
      state,
      analytics,
      log: () => undefined,
      groupPrefix: GROUP_PREFIX,
      onCost: consumerMetrics.recordCost,
    });
    const after = await until(
      scrapeConsumers,
      (samples) =>
        sampleSum(samples, 'tollgate_consumer_lag_offsets', ledger) === 0 &&
        sampleSum(samples, 'tollgate_consumer_lag_offsets', { group: `${GROUP_PREFIX}billing` }) === 0,
    );
    expect(sampleSum(after, 'tollgate_cost_usd_total', { model: 'chat-model' })).toBeGreaterThan(cost);
  }, 90_000);

  it("in embedded mode the consumer thread's families appear in the gateway's /metrics", async () => {
    await pipeline!.stop();
    pipeline = undefined;
    thread = await startConsumerThread({
      settings,
      batching: { maxBatchSize: 500, maxBatchWaitMs: 0 },
      state,
      analytics,
      log: () => undefined,
    });
    gatewayMetrics.addSource(() => thread!.metrics());
    expect((await chat('chat-model')).status).toBe(200);
    const merged = await until(
      scrapeGateway,
      (samples) =>
        sampleSum(samples, 'tollgate_consumer_lag_offsets', {
          group: 'tollgate.ledger',
          topic: 'tollgate.requests',
        }) === 0 && (sampleSum(samples, 'tollgate_cost_usd_total', { model: 'chat-model' }) ?? 0) > 0,
    );
    // One family each: the merge adds the thread's families, it does not repeat the gateway's.
    expect(merged.filter((s) => s.name === 'process_cpu_seconds_total')).toHaveLength(1);
    expect(sampleSum(merged, 'process_start_time_seconds')).toBeGreaterThan(0);
    expect(
      sampleSum(merged, 'tollgate_requests_total', { model: 'chat-model', channel: 'steady', status: '200' }),
    ).toBeGreaterThan(0);
  }, 90_000);
});

describe('where /metrics is served', () => {
  const steady = { channels: [{ id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] }] };

  it('moves with TOLLGATE_METRICS_PATH and is gone with `off`', async () => {
    const moved = await startTestGateway(
      steady,
      { mockBaseUrl: mock.baseUrl },
      { TOLLGATE_METRICS_PATH: '/internal/prometheus' },
    );
    const off = await startTestGateway(steady, { mockBaseUrl: mock.baseUrl }, { TOLLGATE_METRICS_PATH: 'off' });
    try {
      const text = await (await request(`${moved.origin}/internal/prometheus`)).body.text();
      expect(text).toContain('# TYPE tollgate_requests_total counter');
      expect((await request(`${moved.origin}/metrics`)).statusCode).toBe(404);
      expect((await request(`${off.origin}/metrics`)).statusCode).toBe(404);
    } finally {
      await moved.close();
      await off.close();
    }
  });

  it("reads the consumers' listener from the environment", () => {
    expect(metricsListenFromEnv({})).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(metricsListenFromEnv({ HOST: '0.0.0.0', TOLLGATE_METRICS_PORT: '0' })).toEqual({ host: '0.0.0.0', port: 0 });
    expect(
      metricsListenFromEnv({ HOST: '0.0.0.0', TOLLGATE_METRICS_HOST: '10.0.0.5', TOLLGATE_METRICS_PORT: '9100' }),
    ).toEqual({ host: '10.0.0.5', port: 9100 });
    expect(metricsListenFromEnv({ TOLLGATE_METRICS_PORT: 'off' })).toBeUndefined();
    expect(() => metricsListenFromEnv({ TOLLGATE_METRICS_PORT: '70000' })).toThrow(/TOLLGATE_METRICS_PORT/);
    expect(() => metricsListenFromEnv({ TOLLGATE_METRICS_PORT: 'abc' })).toThrow(/TOLLGATE_METRICS_PORT/);
  });

  it("the consumers' listener answers only GET /metrics", async () => {
    expect((await request(`${consumerServer.address}/other`)).statusCode).toBe(404);
    expect((await request(`${consumerServer.address}/metrics`, { method: 'POST', body: '' })).statusCode).toBe(405);
  });
});
