import { describe, expect, it } from 'vitest';
import { makeUsage } from '../../../gateway/canonical/usage.ts';
import { buildTrafficEvents } from '../../../gateway/events/build-traffic-events.ts';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import { decodeTrafficEvent, encodeTrafficEvent } from '../../../schemas/events/traffic-event-codec.ts';
import type { TrafficEvent } from '../../../schemas/events/traffic-events.ts';

const NOW = 1_767_225_600_000;
const identity = { keyId: 'key_a', userId: 'user_1' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const base = {
  requestId: 'req_1',
  keyId: 'key_a',
  userId: 'user_1',
  clientFormat: 'openai-chat',
  model: 'gpt-5',
  stream: false,
  passThrough: false,
  attempts: 1,
  failovers: [],
  latencyMs: 120,
} as const;

const served: ExchangeOutcome = {
  ...base,
  status: 'completed',
  httpStatus: 200,
  channelId: 'ch-1',
  provider: 'deepseek',
  upstreamModel: 'deepseek-v4-flash',
  passThrough: true,
  usage: makeUsage({
    inputTotal: 100,
    cacheRead: 40,
    cacheWrite: 10,
    cacheWrite1h: 6,
    outputTotal: 50,
    reasoning: 20,
    source: 'reported',
  }),
  ttfbMs: 30,
  upstreamRequestId: 'req_upstream_7',
};

function types(events: TrafficEvent[]): string[] {
  return events.map((e) => e.type);
}

type EventOf = { [E in TrafficEvent as E['type']]: E['event'] };

function pick<T extends keyof EventOf>(events: TrafficEvent[], type: T): Array<EventOf[T]> {
  return events.flatMap((e) => (e.type === type ? [e.event as EventOf[T]] : []));
}

function expectEncodable(events: TrafficEvent[]): void {
  for (const event of events) expect(decodeTrafficEvent(encodeTrafficEvent(event))).toStrictEqual(event);
}

describe('buildTrafficEvents', () => {
  it('served: UsageRecorded then RequestCompleted, usage mapped field by field', () => {
    const events = buildTrafficEvents(served, { ...identity, priceRevision: 7 }, NOW);
    expect(types(events)).toEqual(['UsageRecorded', 'RequestCompleted']);
    const tokens = {
      inputTokens: 100,
      cachedInputTokens: 40,
      cacheWriteTokens: 10,
      outputTokens: 50,
      reasoningTokens: 20,
      usageSource: 'reported',
    };
    const [usage] = pick(events, 'UsageRecorded');
    expect(usage).toEqual({
      eventId: expect.stringMatching(UUID),
      occurredAt: NOW,
      requestId: 'req_1',
      keyId: 'key_a',
      userId: 'user_1',
      model: 'gpt-5',
      upstreamModel: 'deepseek-v4-flash',
      channelId: 'ch-1',
      provider: 'deepseek',
      ...tokens,
      priceRevision: 7,
      teamId: null,
      endUserId: null,
      tags: [],
      budgetCounters: [],
      operation: 'generation',
      cacheWrite1hTokens: 6,
    });
    const [completed] = pick(events, 'RequestCompleted');
    expect(completed).toEqual({
      eventId: expect.stringMatching(UUID),
      occurredAt: NOW,
      requestId: 'req_1',
      keyId: 'key_a',
      userId: 'user_1',
      clientFormat: 'openai-chat',
      model: 'gpt-5',
      channelId: 'ch-1',
      provider: 'deepseek',
      upstreamModel: 'deepseek-v4-flash',
      stream: false,
      passThrough: true,
      status: 'completed',
      httpStatus: 200,
      errorKind: null,
      latencyMs: 120,
      ttfbMs: 30,
      attempts: 1,
      usage: tokens,
      priceRevision: 7,
      upstreamRequestId: 'req_upstream_7',
      startedAt: NOW - 120,
      teamId: null,
      endUserId: null,
      tags: [],
      operation: 'generation',
      modelChain: [],
      answeredModel: null,
      affinity: '',
      credentialId: null,
      credentialRotations: 0,
      cacheWrite1hTokens: 6,
    });
    expect(new Set(events.map((e) => e.event.eventId)).size).toBe(events.length);
    expectEncodable(events);
  });

  it("carries an outcome's model chain, affinity and pool credential into RequestCompleted", () => {
    const routed = {
      ...served,
      modelChain: ['gpt-5', 'claude-sonnet-4-5'],
      answeredModel: 'claude-sonnet-4-5',
      affinity: 'moved' as const,
      credentialId: 'key-2',
      credentialRotations: 2,
    };
    const completed = pick(buildTrafficEvents(routed, identity, NOW), 'RequestCompleted')[0];
    expect(completed).toMatchObject({
      modelChain: ['gpt-5', 'claude-sonnet-4-5'],
      answeredModel: 'claude-sonnet-4-5',
      affinity: 'moved',
      credentialId: 'key-2',
      credentialRotations: 2,
    });
  });

  it("carries an embedding outcome's operation into both events", () => {
    const events = buildTrafficEvents({ ...served, operation: 'embedding' }, identity, NOW);
    expect(pick(events, 'UsageRecorded')[0]?.operation).toBe('embedding');
    expect(pick(events, 'RequestCompleted')[0]?.operation).toBe('embedding');
    expectEncodable(events);
  });

  it("carries the outcome's attribution into both events and its budget counters into UsageRecorded", () => {
    const attribution = { teamId: 'team_0123456789abcdef', endUserId: 'end-user-9', tags: ['feature=search'] };
    const budgetCounters = [
      { budgetId: 'bgt_0123456789abcdef', windowStartMs: NOW - 3_600_000, windowEndMs: NOW + 3_600_000 },
      { budgetId: 'bgt_fedcba9876543210', windowStartMs: 0, windowEndMs: null },
    ];
    const events = buildTrafficEvents({ ...served, attribution, budgetCounters }, identity, NOW);
    const [usage] = pick(events, 'UsageRecorded');
    expect(usage).toMatchObject({ ...attribution, budgetCounters });
    const [completed] = pick(events, 'RequestCompleted');
    expect(completed).toMatchObject(attribution);
    expect(completed).not.toHaveProperty('budgetCounters');
    expectEncodable(events);
  });

  it('failed over then served: FailoverOccurred first, then usage, then the request', () => {
    const outcome: ExchangeOutcome = {
      ...served,
      channelId: 'ch-2',
      attempts: 2,
      failovers: [
        {
          channelId: 'ch-1',
          errorKind: 'upstream-unavailable',
          upstreamStatus: 503,
          latencyMs: 40.6,
          nextChannelId: 'ch-2',
        },
      ],
    };
    const events = buildTrafficEvents(outcome, { keyId: 'key_b', userId: null }, NOW);
    expect(types(events)).toEqual(['FailoverOccurred', 'UsageRecorded', 'RequestCompleted']);
    expect(pick(events, 'FailoverOccurred')[0]).toEqual({
      eventId: expect.stringMatching(UUID),
      occurredAt: NOW,
      requestId: 'req_1',
      keyId: 'key_b',
      model: 'gpt-5',
      channelId: 'ch-1',
      errorKind: 'upstream-unavailable',
      upstreamStatus: 503,
      latencyMs: 41,
      retryAfterMs: null,
      nextChannelId: 'ch-2',
    });
    expect(pick(events, 'UsageRecorded')[0]).toMatchObject({ channelId: 'ch-2', keyId: 'key_b', userId: null });
    expect(pick(events, 'RequestCompleted')[0]).toMatchObject({
      channelId: 'ch-2',
      attempts: 2,
      userId: null,
      status: 'completed',
    });
    expect(new Set(events.map((e) => e.event.eventId)).size).toBe(3);
    expectEncodable(events);
  });

  it('failed with no channel: only RequestCompleted, zero usage marked none, nulls', () => {
    const outcome: ExchangeOutcome = {
      ...base,
      status: 'failed',
      httpStatus: 404,
      errorKind: 'not-found',
      errorMessage: 'no such model',
      attempts: 0,
    };
    const events = buildTrafficEvents(outcome, identity, NOW);
    expect(types(events)).toEqual(['RequestCompleted']);
    expect(pick(events, 'RequestCompleted')[0]).toMatchObject({
      channelId: null,
      provider: null,
      upstreamModel: null,
      upstreamRequestId: null,
      status: 'failed',
      httpStatus: 404,
      errorKind: 'not-found',
      ttfbMs: null,
      attempts: 0,
      usage: {
        inputTokens: 0,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        usageSource: 'none',
      },
    });
    expectEncodable(events);
  });

  it('every channel failed: a FailoverOccurred per channel (the last gives up), no UsageRecorded', () => {
    const outcome: ExchangeOutcome = {
      ...base,
      status: 'failed',
      httpStatus: 503,
      errorKind: 'upstream-unavailable',
      attempts: 2,
      channelId: 'ch-2',
      provider: 'openai',
      upstreamModel: 'gpt-5',
      failovers: [
        { channelId: 'ch-1', errorKind: 'upstream-timeout', latencyMs: 5000, nextChannelId: 'ch-2' },
        {
          channelId: 'ch-2',
          errorKind: 'upstream-rate-limited',
          upstreamStatus: 429,
          latencyMs: 12,
          retryAfterMs: 30_000,
        },
      ],
    };
    const events = buildTrafficEvents(outcome, identity, NOW);
    expect(types(events)).toEqual(['FailoverOccurred', 'FailoverOccurred', 'RequestCompleted']);
    const [first, last] = pick(events, 'FailoverOccurred');
    expect(first).toMatchObject({ channelId: 'ch-1', upstreamStatus: null, nextChannelId: 'ch-2', retryAfterMs: null });
    expect(last).toMatchObject({ channelId: 'ch-2', upstreamStatus: 429, nextChannelId: null, retryAfterMs: 30_000 });
    expect(pick(events, 'RequestCompleted')[0]?.usage).toMatchObject({ outputTokens: 0, usageSource: 'none' });
    expectEncodable(events);
  });

  it('cancelled mid-stream: the partial usage is recorded and carried by RequestCompleted', () => {
    const outcome: ExchangeOutcome = {
      ...served,
      stream: true,
      status: 'cancelled',
      httpStatus: 499,
      passThrough: false,
      ttfbMs: 15,
      latencyMs: 800,
      usage: makeUsage({ inputTotal: 2_000, outputTotal: 37, source: 'partial' }),
    };
    const events = buildTrafficEvents(outcome, identity, NOW);
    expect(types(events)).toEqual(['UsageRecorded', 'RequestCompleted']);
    expect(pick(events, 'UsageRecorded')[0]).toMatchObject({
      inputTokens: 2_000,
      outputTokens: 37,
      reasoningTokens: 0,
      usageSource: 'partial',
    });
    expect(pick(events, 'RequestCompleted')[0]).toMatchObject({
      stream: true,
      status: 'cancelled',
      httpStatus: 499,
      errorKind: null,
      ttfbMs: 15,
      latencyMs: 800,
      usage: { inputTokens: 2_000, outputTokens: 37, usageSource: 'partial' },
    });
    expectEncodable(events);
  });

  it('startedAt is the arrival the exchange recorded, whole ms, at or before occurredAt', () => {
    const events = buildTrafficEvents({ ...served, startedAt: NOW - 130.4, latencyMs: 125 }, identity, NOW);
    const [completed] = pick(events, 'RequestCompleted');
    expect(completed?.startedAt).toBe(NOW - 130);
    expect(completed!.startedAt!).toBeLessThanOrEqual(completed!.occurredAt);
  });

  it('failed mid-stream with an error kind still records usage', () => {
    const outcome: ExchangeOutcome = {
      ...served,
      stream: true,
      status: 'failed',
      errorKind: 'upstream-malformed',
      usage: makeUsage({ inputTotal: 9, outputTotal: 3, source: 'estimated' }),
    };
    const events = buildTrafficEvents(outcome, identity, NOW);
    expect(types(events)).toEqual(['UsageRecorded', 'RequestCompleted']);
    expect(pick(events, 'RequestCompleted')[0]).toMatchObject({
      status: 'failed',
      errorKind: 'upstream-malformed',
      usage: { usageSource: 'estimated' },
    });
  });

  it('defaults occurredAt to the current time', () => {
    const before = Date.now();
    const events = buildTrafficEvents(served, identity);
    for (const e of events) expect(e.event.occurredAt).toBeGreaterThanOrEqual(before);
    expect(events[0]?.event.occurredAt).toBeLessThanOrEqual(Date.now());
  });
});
