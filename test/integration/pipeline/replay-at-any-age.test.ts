/**
 * Replays are exact at any age. On both engine sets, traffic events that happened 100 days ago
 * (older than any time-based dedupe window, such as a 7-day TTL on one guard key per event) are
 * folded once; then everything in the state store that can expire is made to expire (in Redis:
 * every key of the run that has a TTL is deleted, as months would), and the topics are replayed
 * from the beginning by fresh consumer groups into the same sinks. Spend counters, channel health,
 * consumption_log, billing_lines, the spend tables and failovers come out unchanged.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsumerPipeline } from '../../../consumers/start-consumer-pipeline.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../../infra/processes/consumer-pipeline-runners.ts';
import { publishTrafficEvents } from '../../../gateway/events/traffic-event-publisher.ts';
import type { TrafficEvent } from '../../../schemas/events/traffic-events.ts';
import {
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  ENGINE_SETS,
  type EngineSet,
  type TestSystem,
} from '../../support/pipeline-harness.ts';

const DAY_MS = 86_400_000;
const REQUESTS = 40;
const usage = {
  inputTokens: 1_000,
  cachedInputTokens: 100,
  cacheWriteTokens: 0,
  outputTokens: 250,
  reasoningTokens: 10,
  usageSource: 'reported',
} as const;

/** The events of `count` requests 100 days ago on channel `old-ch`: every fourth one failed over from `bad-ch` first. */
function oldTraffic(count: number, runId: string, t0: number): TrafficEvent[] {
  const events: TrafficEvent[] = [];
  for (let i = 0; i < count; i++) {
    const header = {
      requestId: `${runId}-req-${i}`,
      occurredAt: t0 + i * 60_000,
      keyId: 'key-old',
      userId: 'user-old',
    };
    if (i % 4 === 0)
      events.push({
        type: 'FailoverOccurred',
        event: {
          ...header,
          eventId: `${runId}-fo-${i}`,
          model: 'old-model',
          channelId: 'bad-ch',
          errorKind: 'upstream-unavailable',
          upstreamStatus: 503,
          latencyMs: 20,
          retryAfterMs: null,
          nextChannelId: 'old-ch',
        },
      });
    events.push({
      type: 'UsageRecorded',
      event: {
        ...header,
        eventId: `${runId}-use-${i}`,
        model: 'old-model',
        upstreamModel: 'old-model',
        channelId: 'old-ch',
        provider: 'mock',
        ...usage,
        priceRevision: 1,
        teamId: null,
        endUserId: null,
        tags: [],
        budgetCounters: [],
        operation: 'generation',
        cacheWrite1hTokens: 0,
      },
    });
    events.push({
      type: 'RequestCompleted',
      event: {
        ...header,
        eventId: `${runId}-rc-${i}`,
        clientFormat: 'openai-chat',
        model: 'old-model',
        channelId: 'old-ch',
        provider: 'mock',
        upstreamModel: 'old-model',
        stream: false,
        passThrough: false,
        status: 'completed',
        httpStatus: 200,
        errorKind: null,
        latencyMs: 300,
        ttfbMs: 100,
        attempts: i % 4 === 0 ? 2 : 1,
        usage,
        priceRevision: 1,
        upstreamRequestId: null,
        startedAt: null,
        teamId: null,
        endUserId: null,
        tags: [],
        operation: 'generation',
        modelChain: [],
        answeredModel: null,
        affinity: '',
        credentialId: null,
        credentialRotations: 0,
        cacheWrite1hTokens: 0,
      },
    });
  }
  return events;
}

describe.each<EngineSet>(ENGINE_SETS)('a replay of 100-day-old events on %s engines', (engines) => {
  let system: TestSystem;
  const t0 = Date.now() - 100 * DAY_MS;

  beforeAll(async () => {
    // The config file's one price becomes PriceSet revision 1 on this run's config topic.
    system = await startTestSystem({
      settings: await isolatedEngineSettings(engines),
      channels: [{ id: 'old-ch', provider: 'mock', protocol: 'openai-chat', models: ['old-model'] }],
      prices: [
        {
          model: 'old-model',
          inputPerMTok: 2.5,
          outputPerMTok: 10,
          cacheReadPerMTok: 1.25,
          effectiveFrom: '2020-01-01T00:00:00Z',
        },
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await system?.close();
  });

  const totals = async () => {
    const one = async (sql: string) =>
      Object.values((await system.analytics.query<Record<string, string>>(sql))[0] ?? {}).join('/');
    const spend = await system.state.getSpend('key-old', 'user-old');
    return {
      rows: await one(
        "SELECT toString(count()) AS n, toString(sum(cost_usd)) AS cost FROM consumption_log FINAL WHERE key_id = 'key-old'",
      ),
      lines: await one(
        "SELECT toString(count()) AS n, toString(sum(cost_usd)) AS cost FROM billing_lines FINAL WHERE key_id = 'key-old'",
      ),
      spendTable: await one(
        "SELECT toString(sum(requests)) AS n, toString(sum(tokens)) AS tokens, toString(sum(cost_usd)) AS cost FROM spend_by_key_day WHERE key_id = 'key-old'",
      ),
      failovers: await one("SELECT toString(count()) AS n FROM failovers FINAL WHERE key_id = 'key-old'"),
      keySpend: spend.keyNanoUsd.toString(),
      userSpend: spend.userNanoUsd.toString(),
      health: JSON.stringify(
        await system.state.getChannelHealth(['old-ch', 'bad-ch'], t0 + (REQUESTS - 1) * 60_000 + 1),
      ),
    };
  };

  it('changes no total', async () => {
    const runId = `r${Date.now().toString(36)}`;
    publishTrafficEvents(system.eventLog, oldTraffic(REQUESTS, runId, t0));
    await system.eventLog.flush();
    await eventually(async () => (await totals()).rows.split('/')[0], String(REQUESTS), 60_000);
    await eventually(async () => (await totals()).lines.split('/')[0], String(REQUESTS), 60_000);
    await eventually(async () => (await totals()).failovers, String(REQUESTS / 4), 60_000);
    // 900 uncached input × 2.5 + 100 cached × 1.25 + 250 output × 10 USD/MTok = 0.004875 USD = 4 875 000 nano-USD a request.
    await eventually(async () => (await totals()).keySpend, String(REQUESTS * 4_875_000), 30_000);
    const before = await totals();
    expect(before.lines).toMatch(new RegExp(`^${REQUESTS}/0?\\.195`));
    expect(JSON.parse(before.health)[0].windowCount).toBeGreaterThan(0);

    if (engines === 'production') await expireEverythingThatCanExpire(system);
    const afterExpiry = await totals();

    const prefix = `replay-${runId}.`;
    const delivered = new Map<string, number>();
    const replay = await startConsumerPipeline({
      runners: CONSUMER_PIPELINE_RUNNERS,
      eventLog: system.eventLog,
      state: system.state,
      analytics: system.analytics,
      log: () => undefined,
      groupPrefix: prefix,
      onBatchDone: (consumer, records) => delivered.set(consumer, (delivered.get(consumer) ?? 0) + records.length),
    });
    try {
      await eventually(
        async () =>
          [delivered.get('ledger') ?? 0, delivered.get('billing') ?? 0, delivered.get('failovers') ?? 0] as number[],
        [REQUESTS, REQUESTS, REQUESTS / 4],
        60_000,
      );
      await eventually(async () => (delivered.get('health') ?? 0) >= REQUESTS + REQUESTS / 4, true, 60_000);
      expect(await totals()).toEqual(afterExpiry);
      expect({ ...afterExpiry, health: before.health }).toEqual(before);
    } finally {
      await replay.stop();
    }
  }, 180_000);
});

/** Deletes every Redis key of this run that has a TTL: what any amount of elapsed time would do. */
async function expireEverythingThatCanExpire(system: TestSystem): Promise<void> {
  const redis = new Redis(system.settings.redisUrl ?? '');
  try {
    const keys = await redis.keys(`${system.settings.redisKeyPrefix ?? ''}*`);
    const withTtl: string[] = [];
    for (const key of keys) if ((await redis.pttl(key)) > 0) withTtl.push(key);
    if (withTtl.length > 0) await redis.del(...withTtl);
    // The watermarks stay: they carry no TTL and are the state's own record of what it applied.
    expect(keys.some((key) => /spend:\{key:.*\}:applied$/.test(key))).toBe(true);
    expect(withTtl.some((key) => key.endsWith(':applied'))).toBe(false);
  } finally {
    redis.disconnect();
  }
}
