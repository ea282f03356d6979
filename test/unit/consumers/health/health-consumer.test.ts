import { consumed } from '../consumed-events.ts';
import { describe, expect, it } from 'vitest';
import { createHealthConsumer } from '../../../../consumers/health/health-consumer.ts';
import type { FailoverOccurred, RequestCompleted, TrafficEvent } from '../../../../schemas/events/traffic-events.ts';
import { createMemoryStateStore } from '../../../../infra/state-store/memory/memory-state-store.ts';
import type { HealthPolicy } from '../../../../schemas/state-store/state-store.ts';
import { TOPICS } from '../../../../schemas/topics.ts';
import { MessageChannel } from 'node:worker_threads';
import { consumerStateOverPort, serveConsumerState } from '../../../../infra/processes/consumer-state-over-port.ts';

const T0 = 1_700_000_000_000;
const POLICY: HealthPolicy = { windowMs: 60_000, failureThreshold: 2, cooldownMs: 10_000, latencyAlpha: 0.5 };
let seq = 0;

function completed(channelId: string | null, overrides: Partial<RequestCompleted> = {}): TrafficEvent {
  const event: RequestCompleted = {
    eventId: `rc-${++seq}`,
    occurredAt: T0 + seq,
    requestId: `req-${seq}`,
    keyId: 'k',
    userId: null,
    clientFormat: 'openai-chat',
    model: 'm',
    channelId,
    provider: channelId ? 'mock' : null,
    upstreamModel: channelId ? 'm' : null,
    stream: false,
    passThrough: false,
    status: 'completed',
    httpStatus: 200,
    errorKind: null,
    latencyMs: 400,
    ttfbMs: 120,
    attempts: 1,
    usage: {
      inputTokens: 1,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 1,
      reasoningTokens: 0,
      usageSource: 'reported',
    },
    priceRevision: null,
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
    ...overrides,
  };
  return { type: 'RequestCompleted', event };
}

function failover(channelId: string, overrides: Partial<FailoverOccurred> = {}): TrafficEvent {
  const event: FailoverOccurred = {
    eventId: `fo-${++seq}`,
    occurredAt: T0 + seq,
    requestId: `req-${seq}`,
    keyId: 'k',
    model: 'm',
    channelId,
    errorKind: 'upstream-unavailable',
    upstreamStatus: 502,
    latencyMs: 30,
    retryAfterMs: null,
    nextChannelId: 'other',
    ...overrides,
  };
  return { type: 'FailoverOccurred', event };
}

async function fold(events: TrafficEvent[], channels: string[]) {
  const state = createMemoryStateStore();
  const consumer = createHealthConsumer({ state, policy: POLICY });
  await consumer.handleBatch(consumed(events));
  return { state, consumer, health: await state.getChannelHealth(channels, T0 + 1_000) };
}

describe('health consumer', () => {
  it('reads the requests and failovers topics as `health`', () => {
    const consumer = createHealthConsumer({ state: createMemoryStateStore() });
    expect(consumer.name).toBe('health');
    expect([...consumer.topics].sort()).toEqual([TOPICS.failovers, TOPICS.requests].sort());
  });

  it('turns failovers into failures and completed requests into successes (ttfb as the latency sample)', async () => {
    const { health } = await fold(
      [failover('a'), completed('b'), completed('a', { ttfbMs: null, latencyMs: 300 })],
      ['a', 'b'],
    );
    expect(health[0]).toMatchObject({
      channelId: 'a',
      windowCount: 2,
      errorRate: 0.5,
      consecutiveFailures: 0,
      latencyEwmaMs: 300,
    });
    expect(health[1]).toMatchObject({ channelId: 'b', windowCount: 1, errorRate: 0, latencyEwmaMs: 120 });
  });

  it('projects a completed request total time (latencyMs) as totalMs, and no total time for requests that did not complete', async () => {
    const { projectChannelObservations } = await import('../../../../consumers/health/project-channel-observations.ts');
    const position = { topic: TOPICS.requests, partition: 0, offset: '1' };
    const project = (event: TrafficEvent) => projectChannelObservations({ ...event, position });
    expect(project(completed('a', { ttfbMs: 120, latencyMs: 4_000 }))).toMatchObject([
      { ok: true, latencyMs: 120, totalMs: 4_000 },
    ]);
    expect(project(completed('a', { ttfbMs: null, latencyMs: 700 }))).toMatchObject([
      { ok: true, latencyMs: 700, totalMs: 700 },
    ]);
    expect(project(completed('a', { ttfbMs: 5, latencyMs: -3 }))[0]?.totalMs).toBe(0);
    const cancelled = project(completed('a', { status: 'cancelled', httpStatus: 499, ttfbMs: 50, latencyMs: 900 }));
    const midStream = project(
      completed('a', { status: 'failed', httpStatus: 200, ttfbMs: 50, errorKind: 'upstream-timeout' }),
    );
    expect(cancelled).toHaveLength(1);
    expect(midStream).toHaveLength(1);
    for (const observation of [...cancelled, ...midStream, ...project(failover('a'))])
      expect(observation).not.toHaveProperty('totalMs');

    const { health } = await fold(
      [completed('a', { ttfbMs: 100, latencyMs: 3_000 }), completed('a', { ttfbMs: 200, latencyMs: 1_000 })],
      ['a'],
    );
    expect(health[0]).toMatchObject({ latencyEwmaMs: 150, totalLatencyEwmaMs: 2_000 });
  });

  it('starts a cooldown from consecutive failovers and honours their Retry-After', async () => {
    const first = failover('a');
    const second = failover('a');
    const limited = failover('b', { errorKind: 'upstream-rate-limited', upstreamStatus: 429, retryAfterMs: 20_000 });
    const { health } = await fold([first, second, limited], ['a', 'b']);
    expect(health[0]).toMatchObject({ consecutiveFailures: 2, cooldownUntil: second.event.occurredAt + 10_000 });
    expect(health[1]).toMatchObject({ consecutiveFailures: 1, cooldownUntil: limited.event.occurredAt + 20_000 });
  });

  it('does not blame the channel for request faults, client cancels or gateway bugs', async () => {
    const { health } = await fold(
      [
        failover('a'),
        failover('a', { errorKind: 'upstream-rejected', upstreamStatus: 400, nextChannelId: null }), // request's fault: ok, resets
        completed('a', { status: 'cancelled', httpStatus: 499, ttfbMs: 50, errorKind: null }), // client left mid-answer: ok sample
        completed('a', { status: 'failed', httpStatus: 500, ttfbMs: 10, errorKind: 'internal' }), // gateway bug: nothing
        failover('a', { errorKind: 'internal', upstreamStatus: null }),
        completed('a', { status: 'failed', httpStatus: 200, ttfbMs: 80, errorKind: 'invalid-request' }),
      ],
      ['a'],
    );
    expect(health[0]).toMatchObject({ windowCount: 4, errorRate: 0.25, consecutiveFailures: 0, latencyEwmaMs: 50 });
  });

  it('counts a failure after the first byte, but not a before-first-byte failure already reported as a failover', async () => {
    const { health } = await fold(
      [
        completed('a', {
          status: 'failed',
          httpStatus: 200,
          ttfbMs: 90,
          errorKind: 'upstream-timeout',
          latencyMs: 5_000,
        }),
        failover('b', { nextChannelId: null }),
        completed('b', { status: 'failed', httpStatus: 502, ttfbMs: null, errorKind: 'upstream-unavailable' }),
        completed('b', { status: 'cancelled', httpStatus: 499, ttfbMs: null, errorKind: 'upstream-unavailable' }),
        completed(null, { status: 'failed', httpStatus: 404, ttfbMs: null, errorKind: 'not-found' }),
      ],
      ['a', 'b'],
    );
    expect(health[0]).toMatchObject({ windowCount: 1, errorRate: 1, consecutiveFailures: 1 });
    expect(health[1]).toMatchObject({ windowCount: 1, errorRate: 1, consecutiveFailures: 1 });
  });

  it('changes nothing when the same batch is delivered twice', async () => {
    const batch = [
      failover('a', { retryAfterMs: 3_000 }),
      failover('a'),
      completed('a'),
      failover('a'),
      completed('b'),
      { type: 'UsageRecorded', event: {} } as TrafficEvent,
    ];
    const { state, consumer, health } = await fold(batch, ['a', 'b']);
    await consumer.handleBatch(consumed(batch));
    await consumer.handleBatch(consumed(batch.slice(2)));
    expect(await state.getChannelHealth(['a', 'b'], T0 + 1_000)).toEqual(health);
    expect(health[0]).toMatchObject({ windowCount: 4, errorRate: 0.75, consecutiveFailures: 1 });
  });

  it('skips an invalid event with a warning instead of blocking the topic, but rejects on store failures', async () => {
    const warnings: string[] = [];
    const state = createMemoryStateStore();
    const consumer = createHealthConsumer({ state, policy: POLICY, onWarning: (m) => warnings.push(m) });
    await consumer.handleBatch(consumed([failover('a', { occurredAt: Number.NaN }), failover('a', { latencyMs: -5 })]));
    expect(warnings).toHaveLength(1);
    expect((await state.getChannelHealth(['a'], T0 + 1_000))[0]?.windowCount).toBe(1);
    const broken = createHealthConsumer({
      state: {
        ...state,
        recordChannelObservation: async () => {
          throw new Error('redis down');
        },
      },
    });
    await expect(broken.handleBatch(consumed([failover('a')]))).rejects.toThrow('redis down');
  });

  it('through a store on another thread: one call per partition, the same health, the same warning, and a store failure still rejects', async () => {
    const served = createMemoryStateStore();
    const channel = new MessageChannel();
    serveConsumerState(served, channel.port1);
    const remote = consumerStateOverPort(channel.port2);
    const calls: number[] = [];
    const counted = {
      ...remote,
      recordChannelObservationsInOrder: (
        observations: Parameters<typeof remote.recordChannelObservationsInOrder>[0],
        policy: HealthPolicy,
      ) => (calls.push(observations.length), remote.recordChannelObservationsInOrder(observations, policy)),
    };
    const warnings: string[] = [];
    const events = [failover('a'), completed('b'), failover('a', { occurredAt: Number.NaN }), failover('a')];
    try {
      await createHealthConsumer({ state: counted, policy: POLICY, onWarning: (m) => warnings.push(m) }).handleBatch(
        consumed(events),
      );
      const direct = createMemoryStateStore();
      await createHealthConsumer({ state: direct, policy: POLICY, onWarning: () => undefined }).handleBatch(
        consumed(events),
      );
      expect(calls.sort()).toEqual([1, 3]); // failovers and requests are two partitions
      expect(warnings).toEqual([expect.stringContaining(`skipped event ${events[2]?.event.eventId}`)]);
      expect(await served.getChannelHealth(['a', 'b'], T0 + 1_000)).toEqual(
        await direct.getChannelHealth(['a', 'b'], T0 + 1_000),
      );
      expect((await served.getChannelHealth(['a'], T0 + 1_000))[0]).toMatchObject({ consecutiveFailures: 2 });
      const brokenServed = new MessageChannel();
      serveConsumerState(
        {
          ...served,
          recordChannelObservation: async () => {
            throw new Error('redis down');
          },
        },
        brokenServed.port1,
      );
      const broken = consumerStateOverPort(brokenServed.port2);
      await expect(createHealthConsumer({ state: broken }).handleBatch(consumed([failover('c')]))).rejects.toThrow(
        'redis down',
      );
      brokenServed.port1.close();
    } finally {
      channel.port1.close();
    }
  });
});
