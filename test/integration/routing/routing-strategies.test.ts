/**
 * The routing strategies through a real gateway (README "Routing strategies"), two channels of one
 * model in front of real HTTP fakes:
 * - `latency`: fakes answering after a deliberate wait; the latency reaches the router as in
 *   production — the gateway publishes its traffic events, the real health consumer folds them
 *   into a state store, the gateway's health view reads that store (captured-traffic.ts);
 * - `least-busy`: requests held open on one channel through the real exchange (its in-flight
 *   count), new requests go to the other — on the same node, and on a second node that learns the
 *   count through the shared in-flight registry (the memory adapter, as two nodes of one process);
 * - `cost`: the channel whose upstream model is cheaper in the config's price book serves.
 * The only times asserted are lower bounds of waits the fakes make on purpose.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import { createMemoryInFlightRegistry } from '../../../infra/state-store/memory/memory-in-flight-registry.ts';
import type { InFlightRegistry } from '../../../schemas/state-store/in-flight-registry.ts';
import { healthFeed, type HealthFeed } from '../../support/captured-traffic.ts';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream.ts';
import { seededRandom } from '../../support/seeded-random.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function fake(...args: Parameters<typeof startScriptedUpstream>): Promise<ScriptedUpstream> {
  const upstream = await startScriptedUpstream(...args);
  closers.push(() => upstream.close());
  return upstream;
}

async function gatewayFor(...args: Parameters<typeof startTestGateway>): Promise<TestGateway> {
  const gateway = await startTestGateway(...args);
  closers.push(() => gateway.close());
  return gateway;
}

const chatChannel = (id: string, upstream: ScriptedUpstream, extra: Record<string, unknown>) => ({
  id,
  provider: 'openai',
  protocol: 'openai-chat',
  baseUrl: upstream.baseUrl,
  apiKey: `sk-upstream-${id}`,
  ...extra,
});

const client = (gateway: TestGateway): OpenAI =>
  new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });

/** Sends one Chat request with the OpenAI SDK and resolves with its outcome. */
async function served(gateway: TestGateway, model: string, stream = false): Promise<ExchangeOutcome> {
  const before = gateway.outcomes.length;
  const messages = [{ role: 'user' as const, content: 'Say hello.' }];
  const text = stream
    ? (await client(gateway).chat.completions.stream({ model, messages }).finalChatCompletion()).choices[0]?.message
        .content
    : (await client(gateway).chat.completions.create({ model, messages })).choices[0]?.message.content;
  expect(text).toBe('Hello! How can I help you today?');
  await waitFor(() => gateway.outcomes.length > before);
  const outcome = gateway.outcomes[before] as ExchangeOutcome;
  expect(outcome).toMatchObject({ status: 'completed', model });
  return outcome;
}

function countBy(outcomes: ReadonlyArray<ExchangeOutcome>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.channelId ?? ''] = (counts[o.channelId ?? ''] ?? 0) + 1;
  return counts;
}

describe('latency', () => {
  let feed: HealthFeed;
  let gateway: TestGateway;
  let fast: ScriptedUpstream;
  let slow: ScriptedUpstream;

  beforeAll(async () => {
    fast = await fake('openai-chat', () => ({ kind: 'success', delayMs: 5 }));
    slow = await fake('openai-chat', () => ({ kind: 'success', delayMs: 150 }));
    feed = healthFeed();
    gateway = await gatewayFor(
      {
        channels: [chatChannel('fast', fast, { models: ['m'] }), chatChannel('slow', slow, { models: ['m'] })],
        routing: { strategy: 'latency' },
      },
      { stateStore: feed.stateStore, eventLog: feed.eventLog, healthRefreshMs: 10, random: seededRandom(1) },
    );
  });

  it('measures each channel first, then sends the large majority to the fast one (non-streamed: total time)', async () => {
    const warmUp: ExchangeOutcome[] = [];
    for (let i = 0; i < 3; i++) {
      warmUp.push(await served(gateway, 'm'));
      await feed.caughtUp();
    }
    // An unmeasured channel goes first so that it gets measured: both served during the warm-up.
    expect(new Set(warmUp.map((o) => o.channelId))).toEqual(new Set(['fast', 'slow']));
    const health = await feed.stateStore.getChannelHealth(['fast', 'slow'], Date.now());
    const slowTotal = health.find((h) => h.channelId === 'slow')?.totalLatencyEwmaMs ?? 0;
    expect(slowTotal).toBeGreaterThanOrEqual(150);

    const measured: ExchangeOutcome[] = [];
    for (let i = 0; i < 20; i++) {
      measured.push(await served(gateway, 'm'));
      await feed.caughtUp();
    }
    expect(countBy(measured).fast ?? 0).toBeGreaterThanOrEqual(18);
  });
});

describe('latency: first token for streams, total time otherwise', () => {
  let feed: HealthFeed;
  let gateway: TestGateway;

  beforeAll(async () => {
    // "early" sends its first event at once and the rest 300 ms later; "steady" sends everything after 150 ms.
    const early = await fake('openai-chat', () => ({ kind: 'success', pauseAfterFirstPartMs: 300 }));
    const steady = await fake('openai-chat', () => ({ kind: 'success', delayMs: 150 }));
    feed = healthFeed();
    gateway = await gatewayFor(
      {
        channels: [chatChannel('early', early, { models: ['m'] }), chatChannel('steady', steady, { models: ['m'] })],
        routing: { strategy: 'latency' },
      },
      { stateStore: feed.stateStore, eventLog: feed.eventLog, healthRefreshMs: 10, random: seededRandom(2) },
    );
  });

  it('streams go to the earliest first token, non-streamed requests to the shortest total', async () => {
    // Warm up with streams only, so that each channel's first-token EWMA holds stream samples.
    const warmUp: ExchangeOutcome[] = [];
    for (let i = 0; i < 3; i++) {
      warmUp.push(await served(gateway, 'm', true));
      await feed.caughtUp();
    }
    expect(new Set(warmUp.map((o) => o.channelId))).toEqual(new Set(['early', 'steady']));
    const health = await feed.stateStore.getChannelHealth(['early', 'steady'], Date.now());
    expect(health.find((h) => h.channelId === 'early')?.totalLatencyEwmaMs).toBeGreaterThanOrEqual(300);
    expect(health.find((h) => h.channelId === 'steady')?.latencyEwmaMs).toBeGreaterThanOrEqual(150);

    const streams: ExchangeOutcome[] = [];
    const whole: ExchangeOutcome[] = [];
    for (let i = 0; i < 8; i++) {
      streams.push(await served(gateway, 'm', true));
      await feed.caughtUp();
      whole.push(await served(gateway, 'm', false));
      await feed.caughtUp();
    }
    expect(countBy(streams).early ?? 0).toBeGreaterThanOrEqual(7);
    expect(countBy(whole).steady ?? 0).toBeGreaterThanOrEqual(7);
  });
});

describe('least-busy', () => {
  let gateway: TestGateway;
  let busy: ScriptedUpstream;
  let idle: ScriptedUpstream;

  beforeAll(async () => {
    // "busy" also serves "held-model", whose calls it holds open until released.
    busy = await fake('openai-chat', (call) => (call.model === 'held-model' ? { kind: 'hold' } : { kind: 'success' }));
    idle = await fake('openai-chat', () => ({ kind: 'success' }));
    gateway = await gatewayFor(
      {
        channels: [
          chatChannel('busy', busy, { models: ['m', 'held-model'] }),
          chatChannel('idle', idle, { models: ['m'] }),
        ],
        routing: { strategy: 'least-busy' },
      },
      { random: seededRandom(3) },
    );
  });

  it('shares idle channels, then sends new requests away from the channel with requests in flight', async () => {
    // Nothing in flight: a tie, shared by weight.
    const before: ExchangeOutcome[] = [];
    for (let i = 0; i < 12; i++) before.push(await served(gateway, 'm'));
    expect(countBy(before).busy ?? 0).toBeGreaterThan(0);
    expect(countBy(before).idle ?? 0).toBeGreaterThan(0);

    const heldCount = 3;
    const held = Array.from({ length: heldCount }, () =>
      client(gateway).chat.completions.create({ model: 'held-model', messages: [{ role: 'user', content: 'wait' }] }),
    );
    await waitFor(() => busy.held() === heldCount);

    const during: ExchangeOutcome[] = [];
    for (let i = 0; i < 10; i++) during.push(await served(gateway, 'm', i % 2 === 1));
    expect(countBy(during)).toEqual({ idle: 10 });

    busy.release();
    for (const answer of await Promise.all(held))
      expect(answer.choices[0]?.message.content).toBe('Hello! How can I help you today?');
    await waitFor(() => gateway.outcomes.filter((o) => o.model === 'held-model').length === heldCount);
    expect(gateway.outcomes.filter((o) => o.model === 'held-model').map((o) => o.channelId)).toEqual([
      'busy',
      'busy',
      'busy',
    ]);
  });
});

describe('least-busy across two gateway nodes (shared in-flight registry)', () => {
  let nodeA: TestGateway;
  let nodeB: TestGateway;
  let busy: ScriptedUpstream;
  /** Every publishAndReadOthers the nodes' boards made: who published what, and what they read back. */
  const exchanges: Array<{ nodeId: string; published: Map<string, number>; read?: Map<string, number> }> = [];

  beforeAll(async () => {
    busy = await fake('openai-chat', (call) => (call.model === 'held-model' ? { kind: 'hold' } : { kind: 'success' }));
    const idle = await fake('openai-chat', () => ({ kind: 'success' }));
    const shared = createMemoryInFlightRegistry();
    const registry: InFlightRegistry = {
      async publishAndReadOthers(nodeId, counts, ttlMs, nowMs) {
        const exchange: (typeof exchanges)[number] = { nodeId, published: new Map(counts) };
        exchanges.push(exchange);
        exchange.read = await shared.publishAndReadOthers(nodeId, counts, ttlMs, nowMs);
        return exchange.read;
      },
      withdraw: (nodeId) => shared.withdraw(nodeId),
      close: () => shared.close(),
    };
    const config = {
      channels: [
        chatChannel('busy', busy, { models: ['m', 'held-model'] }),
        chatChannel('idle', idle, { models: ['m'] }),
      ],
      routing: { strategy: 'least-busy' },
    };
    nodeA = await gatewayFor(config, { inFlightRegistry: registry, random: seededRandom(5) });
    nodeB = await gatewayFor(config, { inFlightRegistry: registry, random: seededRandom(6) });
  });

  it("a node routes away from a channel busy with the other node's requests", async () => {
    const before: ExchangeOutcome[] = [];
    for (let i = 0; i < 12; i++) before.push(await served(nodeB, 'm'));
    expect(countBy(before).busy ?? 0).toBeGreaterThan(0);

    const held = Array.from({ length: 3 }, () =>
      client(nodeA).chat.completions.create({ model: 'held-model', messages: [{ role: 'user', content: 'wait' }] }),
    );
    await waitFor(() => busy.held() === 3);
    // Node A publishes its 3 attempts in flight, then node B reads them (each board refreshes every second).
    await waitFor(() => exchanges.some((e) => e.published.get('busy') === 3), 10_000);
    const publisher = exchanges.find((e) => e.published.get('busy') === 3)?.nodeId;
    const published = exchanges.findIndex((e) => e.published.get('busy') === 3);
    await waitFor(
      () => exchanges.slice(published).some((e) => e.nodeId !== publisher && e.read?.get('busy') === 3),
      10_000,
    );

    const during: ExchangeOutcome[] = [];
    for (let i = 0; i < 10; i++) during.push(await served(nodeB, 'm'));
    expect(countBy(during)).toEqual({ idle: 10 });

    busy.release();
    await Promise.all(held);
  });
});

describe('cost', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    const upstreamA = await fake('openai-chat', () => ({ kind: 'success' }));
    const upstreamB = await fake('openai-chat', () => ({ kind: 'success' }));
    gateway = await gatewayFor(
      {
        channels: [
          chatChannel('vendor-a', upstreamA, { modelMap: { small: 'a-small', large: 'a-large', same: 'shared' } }),
          chatChannel('vendor-b', upstreamB, { modelMap: { small: 'b-small', large: 'b-large', same: 'shared' } }),
        ],
        routing: { strategy: 'cost' },
        prices: [
          { model: 'a-small', inputPerMTok: 0.1, outputPerMTok: 0.4 },
          { model: 'b-small', inputPerMTok: 0.15, outputPerMTok: 0.6 },
          { model: 'a-large', inputPerMTok: 5, outputPerMTok: 15 },
          { model: 'b-large', inputPerMTok: 3, outputPerMTok: 12 },
          // One upstream model, priced per channel.
          { model: 'shared', inputPerMTok: 2, outputPerMTok: 8 },
          { model: 'shared', channel: 'vendor-a', inputPerMTok: 4, outputPerMTok: 16 },
        ],
      },
      { random: seededRandom(4) },
    );
  });

  it.each([
    ['small', 'vendor-a'],
    ['large', 'vendor-b'],
    ['same', 'vendor-b'],
  ])('model %s: the cheaper channel in the price book (%s) serves every request', async (model, cheaper) => {
    const outcomes: ExchangeOutcome[] = [];
    for (let i = 0; i < 8; i++) outcomes.push(await served(gateway, model, i % 2 === 1));
    expect(countBy(outcomes)).toEqual({ [cheaper]: 8 });
  });
});
