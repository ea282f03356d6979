/**
 * The router's strategies on their own (gateway/routing/channel-router.ts, README "Routing
 * strategies"), the fallback triggers read from real upstream error bodies through the adapters'
 * own classifiers (gateway/routing/fallback-triggers.ts), and the retry back-off and rounds
 * (gateway/routing/failover-policy.ts, gateway/exchange/attempt-records.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../../gateway/canonical/gateway-error.ts';
import { configFileSchema } from '../../../gateway/config/config-schema.ts';
import { DEFAULT_ROUTING_SETTINGS, type RoutingSettings } from '../../../gateway/config/routing-settings.ts';
import { RetryRounds } from '../../../gateway/exchange/attempt-records.ts';
import { resolveChannel, type Channel } from '../../../gateway/routing/channel.ts';
import type { ChannelHealthSource } from '../../../gateway/routing/channel-health-source.ts';
import {
  ChannelRouter,
  LATENCY_TOLERANCE,
  type RouteOptions,
  type RoutingSignals,
} from '../../../gateway/routing/channel-router.ts';
import { failoverWaitMs, retryBackoffMs } from '../../../gateway/routing/failover-policy.ts';
import { fallbackTriggerOf } from '../../../gateway/routing/fallback-triggers.ts';
import { anthropicMessagesAdapter } from '../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { bedrockConverseAdapter } from '../../../gateway/upstream/bedrock-converse/bedrock-converse-adapter.ts';
import { classifyAzureOpenAiError } from '../../../gateway/upstream/azure-openai/classify-azure-openai-error.ts';
import { geminiAdapter } from '../../../gateway/upstream/gemini/gemini-adapter.ts';
import { openaiChatAdapter } from '../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import { seededRandom } from '../../support/seeded-random.ts';

type ChannelSpec = { id: string; priority?: number; weight?: number };

function router(specs: ChannelSpec[], random: () => number = seededRandom(1)): ChannelRouter {
  const channels = configFileSchema
    .parse({ channels: specs.map((s) => ({ provider: 'deepseek', models: ['m'], ...s })) })
    .channels.map((c) => resolveChannel(c));
  return new ChannelRouter(channels, random);
}

const ids = (channels: ReadonlyArray<Channel>): string[] => channels.map((c) => c.id);

/** Signals from fixed tables: latency per phase (ms; absent = unmeasured) and in-flight counts. */
function signals(
  firstToken: Record<string, number>,
  total: Record<string, number> = {},
  inFlight: Record<string, number> = {},
): RoutingSignals {
  return {
    latencyMs: (id, phase) => (phase === 'first-token' ? firstToken[id] : total[id]) ?? 0,
    inFlight: (id) => inFlight[id] ?? 0,
  };
}

function health(cooling: string[] = []): ChannelHealthSource {
  return { isCoolingDown: (id) => cooling.includes(id), errorRate: () => 0 };
}

/** How often each channel came first over `draws` orders. */
function firstShares(draw: () => Channel[], draws = 4000): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < draws; i++) {
    const id = draw()[0]?.id ?? '';
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).map(([id, n]) => [id, n / draws]));
}

describe('latency strategy', () => {
  const r = router([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
  // a is quickest to first byte, c quickest to the end.
  const latency = signals({ a: 50, b: 400, c: 200 }, { a: 900, b: 700, c: 300 });

  it('orders a streamed request by time to first token, another by total time', () => {
    const streamed = { strategy: 'latency', signals: latency, stream: true } as const;
    const whole = { strategy: 'latency', signals: latency, stream: false } as const;
    for (let i = 0; i < 20; i++) {
      expect(ids(r.candidatesFor('m', undefined, streamed))).toEqual(['a', 'c', 'b']);
      expect(ids(r.candidatesFor('m', undefined, whole))).toEqual(['c', 'b', 'a']);
    }
  });

  it('puts an unmeasured channel first, so that it gets measured', () => {
    const fresh = signals({ a: 50, c: 200 });
    for (let i = 0; i < 20; i++)
      expect(ids(r.candidatesFor('m', undefined, { strategy: 'latency', signals: fresh, stream: true }))).toEqual([
        'b',
        'a',
        'c',
      ]);
  });

  it('shares the lead by weight among channels within 10 % of the best, the others behind by latency', () => {
    const weighted = router(
      [
        { id: 'heavy', weight: 3 },
        { id: 'light', weight: 1 },
        { id: 'slow', weight: 100 },
      ],
      seededRandom(7),
    );
    const near = 100 * (1 + LATENCY_TOLERANCE);
    const route: RouteOptions = {
      strategy: 'latency',
      signals: signals({}, { heavy: 100, light: near, slow: near + 1 }),
    };
    const shares = firstShares(() => weighted.candidatesFor('m', undefined, route));
    expect(shares.heavy).toBeGreaterThan(0.7);
    expect(shares.heavy).toBeLessThan(0.8);
    expect(shares.light).toBeGreaterThan(0.2);
    expect(shares.slow).toBeUndefined();
    for (let i = 0; i < 50; i++) expect(weighted.candidatesFor('m', undefined, route)[2]?.id).toBe('slow');
  });

  it('without signals, every channel is unmeasured: weighted random as a whole', () => {
    const shares = firstShares(() => r.candidatesFor('m', undefined, { strategy: 'latency' }));
    for (const id of ['a', 'b', 'c']) expect(shares[id]).toBeGreaterThan(0.28);
  });
});

describe('least-busy strategy', () => {
  it('orders by requests in flight, fewest first', () => {
    const r = router([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    const route: RouteOptions = { strategy: 'least-busy', signals: signals({}, {}, { a: 7, b: 0, c: 3 }) };
    for (let i = 0; i < 20; i++) expect(ids(r.candidatesFor('m', undefined, route))).toEqual(['b', 'c', 'a']);
  });

  it('shares a tie by weight (no tolerance: 1 in flight is not a tie with 0)', () => {
    const r = router(
      [
        { id: 'heavy', weight: 3 },
        { id: 'light', weight: 1 },
        { id: 'busy', weight: 50 },
      ],
      seededRandom(11),
    );
    const route: RouteOptions = { strategy: 'least-busy', signals: signals({}, {}, { busy: 1 }) };
    const shares = firstShares(() => r.candidatesFor('m', undefined, route));
    expect(shares.heavy).toBeGreaterThan(0.7);
    expect(shares.heavy).toBeLessThan(0.8);
    expect(shares.busy).toBeUndefined();
  });
});

describe('cost strategy', () => {
  const costs: Record<string, number | undefined> = { a: 0.02, b: 0.005, c: undefined, d: 0.01 };
  const route: RouteOptions = { strategy: 'cost', costOf: (channel) => costs[channel.id] };

  it('orders by expected cost, cheapest first, unpriced channels last', () => {
    const r = router([{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }]);
    for (let i = 0; i < 20; i++) expect(ids(r.candidatesFor('m', undefined, route))).toEqual(['b', 'd', 'a', 'c']);
  });

  it('shares an equal cost by weight; unpriced channels among themselves by weight', () => {
    const r = router(
      [
        { id: 'x', weight: 1 },
        { id: 'y', weight: 3 },
        { id: 'u', weight: 1 },
        { id: 'v', weight: 3 },
      ],
      seededRandom(5),
    );
    const equal: RouteOptions = {
      strategy: 'cost',
      costOf: (channel) => ({ x: 0.01, y: 0.01 })[channel.id as 'x' | 'y'],
    };
    const orders = Array.from({ length: 4000 }, () => ids(r.candidatesFor('m', undefined, equal)));
    const yFirst = orders.filter((o) => o[0] === 'y').length / orders.length;
    const vThird = orders.filter((o) => o[2] === 'v').length / orders.length;
    expect(yFirst).toBeGreaterThan(0.7);
    expect(yFirst).toBeLessThan(0.8);
    expect(vThird).toBeGreaterThan(0.7);
    expect(vThird).toBeLessThan(0.8);
    for (const o of orders) expect(new Set(o.slice(0, 2))).toEqual(new Set(['x', 'y']));
  });
});

describe('rules above the strategy', () => {
  const tiers = [
    { id: 'high-slow', priority: 5 },
    { id: 'high-fast', priority: 5 },
    { id: 'low-fastest', priority: 0 },
  ];
  const latency: RouteOptions = {
    strategy: 'latency',
    signals: signals({}, { 'high-slow': 900, 'high-fast': 300, 'low-fastest': 5 }),
  };

  it('never orders across priority tiers, whatever the signal', () => {
    const r = router(tiers);
    const strategies: RouteOptions[] = [
      latency,
      { strategy: 'least-busy', signals: signals({}, {}, { 'high-slow': 50, 'high-fast': 40 }) },
      { strategy: 'cost', costOf: (c) => (c.id === 'low-fastest' ? 0.0001 : 1) },
    ];
    for (const route of strategies)
      for (let i = 0; i < 20; i++) expect(r.candidatesFor('m', undefined, route)[2]?.id).toBe('low-fastest');
    expect(ids(r.candidatesFor('m', undefined, latency))).toEqual(['high-fast', 'high-slow', 'low-fastest']);
  });

  it('puts cooling channels last, after lower tiers, even the best-scored', () => {
    const r = router(tiers);
    for (let i = 0; i < 20; i++)
      expect(ids(r.candidatesFor('m', health(['high-fast']), latency))).toEqual([
        'high-slow',
        'low-fastest',
        'high-fast',
      ]);
  });

  it('puts the pinned channel first only when it is ready and in the first ready tier', () => {
    const r = router(tiers);
    const pinned = (id: string): RouteOptions => ({ ...latency, preferredChannelId: id });
    expect(ids(r.candidatesFor('m', health(), pinned('high-slow')))).toEqual(['high-slow', 'high-fast', 'low-fastest']);
    // In a lower tier than a ready channel: not pulled ahead of the tier.
    expect(ids(r.candidatesFor('m', health(), pinned('low-fastest')))).toEqual([
      'high-fast',
      'high-slow',
      'low-fastest',
    ]);
    // Cooling: stays with the cooling channels at the end.
    expect(ids(r.candidatesFor('m', health(['high-slow']), pinned('high-slow')))).toEqual([
      'high-fast',
      'low-fastest',
      'high-slow',
    ]);
    // The higher tier is all cooling: the lower tier is the first ready one, and the pin leads it.
    expect(ids(r.candidatesFor('m', health(['high-slow', 'high-fast']), pinned('low-fastest')))).toEqual([
      'low-fastest',
      'high-fast',
      'high-slow',
    ]);
  });
});

describe('fallback triggers of real upstream error bodies', () => {
  const json = (value: unknown): string => JSON.stringify(value);

  it('context window: OpenAI context_length_exceeded, Anthropic "prompt is too long", Gemini token count, Bedrock "Input is too long"', () => {
    // https://platform.openai.com/docs/guides/error-codes (400 invalid_request_error, code context_length_exceeded)
    const openai = openaiChatAdapter.classifyError(
      400,
      json({
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      }),
      {},
    );
    // https://docs.anthropic.com/en/api/errors (400 invalid_request_error)
    const anthropic = anthropicMessagesAdapter.classifyError(
      400,
      json({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' },
        request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy',
      }),
      {},
    );
    // https://ai.google.dev/gemini-api/docs/troubleshooting (400 INVALID_ARGUMENT)
    const gemini = geminiAdapter.classifyError(
      400,
      json({
        error: {
          code: 400,
          message: 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).',
          status: 'INVALID_ARGUMENT',
        },
      }),
      {},
    );
    // https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors (400 ValidationException)
    const bedrock = bedrockConverseAdapter.classifyError(
      400,
      json({ message: 'Input is too long for requested model.' }),
      { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
    );
    for (const error of [openai, anthropic, gemini, bedrock]) {
      expect(error.kind).toBe('upstream-rejected');
      expect(error.allowFailover).toBe(false);
      expect(fallbackTriggerOf(error)).toBe('context-window');
    }
  });

  it('content policy: Azure content_filter, OpenAI content_policy_violation', () => {
    // https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter#scenario-details
    const azure = classifyAzureOpenAiError(
      400,
      json({
        error: {
          message:
            "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
          type: null,
          param: 'prompt',
          code: 'content_filter',
          status: 400,
          innererror: {
            code: 'ResponsibleAIPolicyViolation',
            content_filter_result: {
              hate: { filtered: false, severity: 'safe' },
              violence: { filtered: true, severity: 'high' },
            },
          },
        },
      }),
      {},
    );
    const openai = openaiChatAdapter.classifyError(
      400,
      json({
        error: {
          message: 'Your request was rejected as a result of our safety system.',
          type: 'invalid_request_error',
          param: null,
          code: 'content_policy_violation',
        },
      }),
      {},
    );
    for (const error of [azure, openai]) expect(fallbackTriggerOf(error)).toBe('content-policy');
    expect(azure.allowFailover).toBe(false);
  });

  it('unavailable: 5xx, 429, a refused credential, no channel; nothing for a plain bad request', () => {
    const body = json({ error: { message: 'The server is overloaded', type: 'server_error', code: null } });
    expect(fallbackTriggerOf(openaiChatAdapter.classifyError(503, body, {}))).toBe('unavailable');
    expect(fallbackTriggerOf(openaiChatAdapter.classifyError(429, body, { 'retry-after': '3' }))).toBe('unavailable');
    expect(fallbackTriggerOf(anthropicMessagesAdapter.classifyError(401, body, {}))).toBe('unavailable');
    expect(fallbackTriggerOf(new GatewayError('rate-limited', 'every channel is at its limit'))).toBe('unavailable');
    expect(fallbackTriggerOf(new GatewayError('not-found', 'no channel serves the model'))).toBe('unavailable');
    const badRequest = openaiChatAdapter.classifyError(
      400,
      json({
        error: {
          message: "Invalid value for 'temperature': must be at most 2.",
          type: 'invalid_request_error',
          param: 'temperature',
          code: 'invalid_value',
        },
      }),
      {},
    );
    expect(fallbackTriggerOf(badRequest)).toBeUndefined();
    expect(fallbackTriggerOf(new GatewayError('invalid-request', 'messages must not be empty'))).toBeUndefined();
  });
});

describe('retry back-off and rounds', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('draws a full-jitter back-off in [0, min(max, base × 2^(round − 1)))', () => {
    expect(retryBackoffMs(1, 250, 8000, () => 0)).toBe(0);
    expect(retryBackoffMs(1, 250, 8000, () => 0.999999)).toBe(249);
    expect(retryBackoffMs(2, 250, 8000, () => 0.999999)).toBe(499);
    expect(retryBackoffMs(3, 250, 8000, () => 0.5)).toBe(500);
    expect(retryBackoffMs(10, 250, 8000, () => 0.999999)).toBe(7999);
    const random = seededRandom(3);
    for (let round = 1; round <= 8; round++)
      for (let i = 0; i < 200; i++) {
        const ms = retryBackoffMs(round, 100, 3000, random);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThan(Math.min(3000, 100 * 2 ** (round - 1)));
      }
  });

  it('waits a Retry-After only up to the cap', () => {
    expect(failoverWaitMs({ retryAfterMs: 300 }, 1000)).toBe(300);
    expect(failoverWaitMs({ retryAfterMs: 30_000 }, 1000)).toBe(0);
    expect(failoverWaitMs({ retryAfterMs: 1000 })).toBe(1000);
    expect(failoverWaitMs({ retryAfterMs: undefined })).toBe(0);
  });

  const [one, two] = configFileSchema
    .parse({
      channels: [
        { id: 'one', provider: 'deepseek', models: ['m'] },
        { id: 'two', provider: 'deepseek', models: ['m'] },
      ],
    })
    .channels.map((c) => resolveChannel(c)) as [Channel, Channel];
  const retries = (changes: Partial<RoutingSettings['retries']>): RoutingSettings['retries'] => ({
    ...DEFAULT_ROUTING_SETTINGS.retries,
    ...changes,
  });
  const unavailable = (retryAfterMs?: number): GatewayError =>
    new GatewayError('upstream-unavailable', 'Service Unavailable', {
      upstreamStatus: 503,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });

  it('retries transiently failed channels in the order they failed, at most maxRetries rounds', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const rounds = new RetryRounds(retries({ maxRetries: 2, backoffBaseMs: 100 }), 1_000_000 + 60_000, () => 0.5);
    expect(rounds.nextRound()).toBeUndefined(); // nothing failed yet
    rounds.noteFailure(two, unavailable());
    rounds.noteFailure(one, unavailable());
    rounds.noteFailure(two, unavailable()); // once per round
    expect(rounds.nextRound()).toEqual({ channels: [two, one], waitMs: 50 });
    rounds.noteFailure(one, unavailable());
    expect(rounds.nextRound()).toEqual({ channels: [one], waitMs: 100 }); // doubled: 0.5 × 200
    rounds.noteFailure(one, unavailable());
    expect(rounds.nextRound()).toBeUndefined(); // maxRetries reached
  });

  it('does not retry a request fault nor a channel whose Retry-After is above the cap', () => {
    const rounds = new RetryRounds(retries({ maxRetries: 3, retryAfterCapMs: 1000 }), Date.now() + 60_000);
    rounds.noteFailure(one, new GatewayError('upstream-rejected', 'bad request', { upstreamStatus: 400 }));
    rounds.noteFailure(two, unavailable(30_000));
    expect(rounds.nextRound()).toBeUndefined();
  });

  it('waits the first channel’s Retry-After when longer than the back-off and within the cap', () => {
    const rounds = new RetryRounds(
      retries({ maxRetries: 1, backoffBaseMs: 10, retryAfterCapMs: 1000 }),
      Date.now() + 60_000,
      () => 0.99,
    );
    rounds.noteFailure(one, unavailable(700));
    expect(rounds.nextRound()).toEqual({ channels: [one], waitMs: 700 });
  });

  it('never waits past the request deadline', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(5_000_000);
    const settings = retries({ maxRetries: 1, backoffBaseMs: 1000 });
    const late = new RetryRounds(settings, 5_000_000 + 500, () => 0.6); // back-off 600 ms > 500 ms left
    late.noteFailure(one, unavailable());
    expect(late.nextRound()).toBeUndefined();
    const inTime = new RetryRounds(settings, 5_000_000 + 700, () => 0.6);
    inTime.noteFailure(one, unavailable());
    expect(inTime.nextRound()).toEqual({ channels: [one], waitMs: 600 });
  });
});
