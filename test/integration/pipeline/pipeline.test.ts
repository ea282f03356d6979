/**
 * The design card's shape end to end, on both engine sets: N requests through the gateway —
 * streamed, not streamed, failed over, cut by the client, refused for an unknown model — give
 * exactly N rows in consumption_log; every cost equals the price book's arithmetic to the
 * nano-dollar; spend counters match the billed rows; and the health the feedback consumer folds
 * from failover events turns the failing channel away on another gateway node.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsumerPipeline } from '../../../consumers/start-consumer-pipeline.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../../infra/processes/consumer-pipeline-runners.ts';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { buildPriceBook, costNanoUsd, findPrice, type PriceEntryConfig } from '../../../schemas/billing/price-book.ts';
import {
  decimalToNano,
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  type EngineSet,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';
import { runnableCases } from '../../support/engines.ts';

const CHANNELS = [
  // Highest tier, always failing: every request fails over from it until health turns it away.
  {
    id: 'flaky',
    provider: 'mock',
    protocol: 'anthropic-messages',
    models: ['chat-model'],
    priority: 10,
    mock: { failStatus: 503 },
  },
  {
    id: 'steady',
    provider: 'mock',
    protocol: 'openai-chat',
    models: ['chat-model'],
    modelMap: { 'alias-model': 'chat-model' },
    priority: 0,
  },
];
const PRICES: PriceEntryConfig[] = [
  {
    model: 'chat-model',
    inputPerMTok: 0.27,
    outputPerMTok: 1.1,
    cacheReadPerMTok: 0.07,
    effectiveFrom: '2020-01-01T00:00:00Z',
  },
  // A channel-specific price overrides the general one for the channel that serves.
  {
    model: 'chat-model',
    channel: 'steady',
    inputPerMTok: 0.123456789,
    outputPerMTok: 2.5,
    effectiveFrom: '2021-01-01T00:00:00Z',
  },
  // Not yet in effect.
  {
    model: 'chat-model',
    channel: 'steady',
    inputPerMTok: 99,
    outputPerMTok: 99,
    effectiveFrom: '2999-01-01T00:00:00Z',
  },
];

interface LogRow {
  request_id: string;
  status: string;
  channel_id: string;
  upstream_model: string;
  model: string;
  occurred_at_ms: string;
  input_tokens: string;
  cached_input_tokens: string;
  cache_write_tokens: string;
  output_tokens: string;
  reasoning_tokens: string;
  usage_source: string;
  cost: string;
  attempts: string;
}

async function sendTraffic(system: TestSystem): Promise<number> {
  const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${system.origin}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: system.origin, maxRetries: 0 });
  let sent = 0;
  for (let i = 0; i < 4; i++) {
    await openai.chat.completions.create({ model: 'chat-model', messages: [{ role: 'user', content: `plain ${i}` }] });
    await openai.chat.completions
      .stream({ model: 'alias-model', messages: [{ role: 'user', content: `streamed ${i}` }] })
      .finalChatCompletion();
    await anthropic.messages.create({
      model: 'chat-model',
      max_tokens: 100,
      messages: [{ role: 'user', content: `anthropic ${i}` }],
    });
    await anthropic.messages
      .stream({
        model: 'chat-model',
        max_tokens: 100,
        messages: [{ role: 'user', content: `anthropic streamed ${i}` }],
      })
      .finalMessage();
    sent += 4;
  }
  for (let i = 0; i < 2; i++) {
    const controller = new AbortController();
    const stream = await openai.chat.completions.create(
      {
        model: 'chat-model',
        stream: true,
        messages: [{ role: 'user', content: `cut me off please, word after word after word ${i} [mock:slow=60]` }],
      },
      { signal: controller.signal },
    );
    let chunks = 0;
    for await (const _ of stream) if (++chunks === 2) controller.abort();
    sent += 1;
  }
  await openai.chat.completions
    .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] })
    .catch(() => undefined);
  sent += 1;
  return sent;
}

describe.each(
  runnableCases<[EngineSet, 'this thread' | 'a worker thread']>(
    [
      ['embedded', 'this thread'],
      ['production', 'this thread'],
      ['embedded', 'a worker thread'],
    ],
    ([engines]) => engines === 'production',
  ),
)('event pipeline on %s engines, consumers on %s', (engines, consumersOn) => {
  let system: TestSystem;
  let sent = 0;

  beforeAll(async () => {
    system = await startTestSystem({
      settings: await isolatedEngineSettings(engines),
      channels: CHANNELS,
      prices: PRICES,
      consumerThread: consumersOn === 'a worker thread',
    });
    sent = await sendTraffic(system);
    await system.eventLog.flush();
  }, 120_000);

  afterAll(async () => {
    await system?.close();
  }, 60_000);

  const countRows = async (table: string): Promise<number> =>
    Number(
      (await system.analytics.query<{ n: string }>(`SELECT toString(count()) AS n FROM ${table} FINAL`))[0]?.n ?? -1,
    );

  it('records exactly one consumption_log row per request', async () => {
    expect(sent).toBe(19);
    await eventually(() => countRows('consumption_log'), sent);
    const statuses = await system.analytics.query<{ status: string; n: string }>(
      'SELECT status, toString(count()) AS n FROM consumption_log FINAL GROUP BY status ORDER BY status',
    );
    expect(statuses).toEqual([
      { status: 'cancelled', n: '2' },
      { status: 'completed', n: '16' },
      { status: 'failed', n: '1' },
    ]);
  });

  // Runs right after the traffic: the failing channel's cooldown lasts 30 s from its last failure.
  it('turns the failing channel away on another gateway node through shared health', async () => {
    await eventually(
      async () => ((await system.state.getChannelHealth(['flaky']))[0]?.consecutiveFailures ?? 0) >= 3,
      true,
    );
    const [health] = await system.state.getChannelHealth(['flaky']);
    expect(health?.consecutiveFailures).toBeGreaterThanOrEqual(3);
    expect(health?.cooldownUntil).toBeGreaterThan(Date.now());
    // A second node: fresh process state (no local breaker), same shared state store, no consumers.
    const second = await startTestSystem({
      settings: {
        ...system.settings,
        dataDir: mkdtempSync(join(tmpdir(), 'tollgate-node2-')),
        topicPrefix: `${system.settings.topicPrefix ?? ''}node2.`,
      },
      channels: CHANNELS,
      prices: PRICES,
      consumers: false,
      state: system.state,
      analytics: system.analytics,
      healthRefreshMs: 50,
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${second.origin}/v1`, maxRetries: 0 });
      await openai.chat.completions.create({
        model: 'chat-model',
        messages: [{ role: 'user', content: 'are you there?' }],
      });
      expect(second.outcomes[0]).toMatchObject({ channelId: 'steady', attempts: 1, failovers: [] });
    } finally {
      await second.close();
    }
  });

  it('bills every row at the price book to the nano-dollar', async () => {
    await eventually(() => countRows('consumption_log'), sent);
    const rows = await system.analytics.query<LogRow>(
      'SELECT request_id, status, channel_id, upstream_model, model, toString(occurred_at_ms) AS occurred_at_ms, toString(input_tokens) AS input_tokens, toString(cached_input_tokens) AS cached_input_tokens, toString(cache_write_tokens) AS cache_write_tokens, toString(output_tokens) AS output_tokens, toString(reasoning_tokens) AS reasoning_tokens, usage_source, toString(cost_usd) AS cost, toString(attempts) AS attempts FROM consumption_log FINAL',
    );
    const book = buildPriceBook(PRICES);
    let billedRows = 0;
    for (const row of rows) {
      const usage = {
        inputTokens: Number(row.input_tokens),
        cachedInputTokens: Number(row.cached_input_tokens),
        cacheWriteTokens: Number(row.cache_write_tokens),
        outputTokens: Number(row.output_tokens),
        reasoningTokens: Number(row.reasoning_tokens),
        usageSource: row.usage_source as 'reported',
      };
      const price = findPrice(book, row.upstream_model, row.channel_id, Number(row.occurred_at_ms));
      const expected = price ? costNanoUsd(usage, price) : 0n;
      // Engines print decimals differently ('1.5' vs '1.500000000'): compare exact nano-units.
      expect(decimalToNano(row.cost)).toBe(expected);
      if (row.status !== 'failed') {
        expect(row.channel_id).toBe('steady');
        expect(price?.channel).toBe('steady');
        expect(Number(row.input_tokens)).toBeGreaterThan(0);
        expect(expected).toBeGreaterThan(0n);
        billedRows++;
      }
    }
    expect(billedRows).toBe(sent - 1);
    expect(rows.filter((r) => r.status === 'cancelled').every((r) => r.usage_source === 'partial')).toBe(true);
    expect(rows.filter((r) => r.model === 'alias-model').every((r) => r.upstream_model === 'chat-model')).toBe(true);
  });

  it("carries the gateway's request id and the upstream's own id into every row", async () => {
    await eventually(() => countRows('consumption_log'), sent);
    const rows = await system.analytics.query<{ request_id: string; channel_id: string; upstream_request_id: string }>(
      'SELECT request_id, channel_id, upstream_request_id FROM consumption_log FINAL',
    );
    const byId = new Map(rows.map((row) => [row.request_id, row]));
    for (const outcome of system.outcomes.slice(0, sent)) {
      const row = byId.get(outcome.requestId);
      expect(row, outcome.requestId).toBeDefined();
      expect(row?.upstream_request_id).toBe(outcome.upstreamRequestId ?? '');
    }
    // The mock upstream names every answer it served (x-request-id: mockreq_…).
    const served = rows.filter((row) => row.channel_id === 'steady');
    expect(served.length).toBeGreaterThan(0);
    expect(served.every((row) => /^mockreq_[0-9a-f]{24}$/.test(row.upstream_request_id))).toBe(true);
  });

  it('keeps spend counters equal to the billed lines', async () => {
    await eventually(() => countRows('billing_lines'), sent - 1);
    const lines = await system.analytics.query<{ cost: string }>(
      'SELECT toString(cost_usd) AS cost FROM billing_lines FINAL',
    );
    const total = lines.reduce((sum, line) => sum + decimalToNano(line.cost), 0n);
    expect(total).toBeGreaterThan(0n);
    const keyId = system.outcomes[0]?.keyId ?? '';
    await eventually(async () => (await system.state.getSpend(keyId, null)).keyNanoUsd.toString(), total.toString());
    const [byKey] = await system.analytics.query<{ cost: string }>(
      `SELECT toString(sum(cost_usd)) AS cost FROM spend_by_key_day WHERE key_id = '${keyId}'`,
    );
    expect(decimalToNano(byKey?.cost ?? '-1')).toBe((await system.state.getSpend(keyId, null)).keyNanoUsd);
  });

  it('changes no total when every topic is replayed from the beginning', async () => {
    await eventually(() => countRows('billing_lines'), sent - 1);
    const totals = async () => ({
      rows: await countRows('consumption_log'),
      lines: await countRows('billing_lines'),
      cost: (
        await system.analytics.query<{ cost: string }>(
          'SELECT toString(sum(cost_usd)) AS cost FROM consumption_log FINAL',
        )
      )[0]?.cost,
      spend: (await system.state.getSpend(system.outcomes[0]?.keyId ?? '', null)).keyNanoUsd.toString(),
      health: JSON.stringify(await system.state.getChannelHealth(['flaky', 'steady'], 0)),
    });
    const before = await totals();
    // An operator's audit replay: new consumer groups read every topic again into the same sinks.
    const delivered = new Map<string, number>();
    const countingLog: EventLog = {
      publish: (record) => system.eventLog.publish(record),
      flush: () => system.eventLog.flush(),
      status: () => system.eventLog.status(),
      close: () => system.eventLog.close(),
      endOffsets: (topic) => system.eventLog.endOffsets(topic),
      subscribe: (options) =>
        system.eventLog.subscribe({
          ...options,
          handleBatch: async (records) => {
            await options.handleBatch(records);
            for (const r of records)
              delivered.set(`${options.groupId}/${r.topic}`, (delivered.get(`${options.groupId}/${r.topic}`) ?? 0) + 1);
          },
        }),
    };
    const prefix = `replay-${Date.now()}.`;
    const replay = await startConsumerPipeline({
      runners: CONSUMER_PIPELINE_RUNNERS,
      eventLog: countingLog,
      state: system.state,
      analytics: system.analytics,
      log: () => undefined,
      groupPrefix: prefix,
    });
    try {
      const replayed = () =>
        Promise.resolve([
          delivered.get(`${prefix}ledger/${TOPICS.requests}`) ?? 0,
          delivered.get(`${prefix}billing/${TOPICS.usage}`) ?? 0,
        ]);
      await eventually(replayed, [before.rows, before.lines], 60_000);
      expect(await totals()).toEqual(before);
    } finally {
      await replay.stop();
    }
  });
});
