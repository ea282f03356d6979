/**
 * Channel limits and bounded failover in a real gateway (fixture upstream, real HTTP):
 * a channel at its RPM/TPM limit is skipped (not a failure) and the next one serves; when every
 * channel is at its limit the client gets its format's 429 with retry-after; token reservations
 * are settled with the actual usage; at most `maxAttempts` channels are tried; a short upstream
 * Retry-After is waited for before the next attempt, a long one is not. Two gateways sharing a
 * Redis limiter see each other's channel admissions.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelLimits } from '../../../gateway/policy/channel-limits.ts';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';
import type { RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';
import { createRedisRateLimiter } from '../../../infra/state-store/redis/redis-rate-limiter.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

type Limits = Record<string, { rpm: number | null; tpm: number | null }>;

/** An upstream answering 429 with `retry-after-ms: 400` (model `ra-short`) or `retry-after: 30` (else); records arrival times. */
async function startRetryAfterUpstream(): Promise<{ server: Server; baseUrl: string; arrivals: number[] }> {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      arrivals.push(Date.now());
      const short = (JSON.parse(body) as { model?: string }).model === 'ra-short';
      res.writeHead(429, {
        'content-type': 'application/json',
        ...(short ? { 'retry-after-ms': '400' } : { 'retry-after': '30' }),
      });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, arrivals };
}

let upstream: FixtureUpstream;
let retryUpstream: Awaited<ReturnType<typeof startRetryAfterUpstream>>;
let gateway: TestGateway;
let memoryLimiter: RateLimiter;

const chat = (
  id: string,
  priority: number,
  modelMap: Record<string, string>,
  baseUrl = upstream.baseUrl('openai-chat'),
) => ({ id, provider: 'deepseek', protocol: 'openai-chat', baseUrl, apiKey: 'k', priority, modelMap });

const LIMITS: Limits = {
  limited: { rpm: 1, tpm: null },
  spare: { rpm: 1, tpm: null },
  'tpm-small': { rpm: null, tpm: 100 },
  'settle-tpm': { rpm: null, tpm: 5_000 },
};

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  retryUpstream = await startRetryAfterUpstream();
  memoryLimiter = createMemoryRateLimiter();
  gateway = await startTestGateway(
    {
      channels: [
        chat('limited', 10, { 'm-rpm': 'text' }),
        chat('spare', 0, { 'm-rpm': 'text' }),
        chat('tpm-small', 10, { 'm-tpm': 'text' }),
        chat('tpm-ok', 0, { 'm-tpm': 'text' }),
        chat('settle-tpm', 0, { 'm-settle': 'text' }),
        ...[1, 2, 3, 4, 5].map((n) => chat(`cap-${n}`, 0, { 'm-cap': 'fail-503' })),
        chat('ra-short', 10, { 'm-backoff': 'ra-short' }, retryUpstream.baseUrl),
        chat('ra-long', 10, { 'm-nowait': 'ra-long' }, retryUpstream.baseUrl),
        chat('backup', 0, { 'm-backoff': 'text', 'm-nowait': 'text' }),
      ],
    },
    { channelLimits: createChannelLimits({ limiter: memoryLimiter, limitsOf: (id) => LIMITS[id] }), maxAttempts: 2 },
  );
});

afterAll(async () => {
  await gateway?.close();
  await memoryLimiter?.close();
  await upstream?.close();
  await new Promise<void>((resolve) => (retryUpstream ? retryUpstream.server.close(() => resolve()) : resolve()));
});

/** POSTs an OpenAI chat request for `model` to `origin`. */
async function chatRequest(origin: string, model: string): Promise<Response> {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

/** The outcome of the latest request for `model` once emitted. */
async function lastOutcome(gw: TestGateway, model: string, count: number) {
  await waitFor(() => gw.outcomes.filter((o) => o.model === model).length >= count);
  return gw.outcomes.filter((o) => o.model === model)[count - 1];
}

describe('channel limits', () => {
  it('skips a channel at its RPM limit (served by the next), then answers 429 when all are at their limit', async () => {
    const upstreamBefore = upstream.requests.length;
    expect((await chatRequest(gateway.origin, 'm-rpm')).status).toBe(200);
    expect(await lastOutcome(gateway, 'm-rpm', 1)).toMatchObject({
      status: 'completed',
      channelId: 'limited',
      attempts: 1,
      failovers: [],
    });
    expect((await chatRequest(gateway.origin, 'm-rpm')).status).toBe(200);
    expect(await lastOutcome(gateway, 'm-rpm', 2)).toMatchObject({
      status: 'completed',
      channelId: 'spare',
      attempts: 1,
      failovers: [],
    });

    const refused = await chatRequest(gateway.origin, 'm-rpm');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(55);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({
      error: { message: 'every channel serving this model is at its limit', code: 'rate_limit_exceeded' },
    });
    expect(await lastOutcome(gateway, 'm-rpm', 3)).toMatchObject({
      status: 'failed',
      httpStatus: 429,
      errorKind: 'rate-limited',
      attempts: 0,
      failovers: [],
    });

    // The Anthropic client format gets its own 429 for the same refusal.
    const anthropic = await fetch(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm-rpm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(anthropic.status).toBe(429);
    expect(anthropic.headers.get('retry-after')).not.toBeNull();
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(upstream.requests.length - upstreamBefore).toBe(2); // the refusals never reached an upstream
  });

  it('skips a channel whose TPM the request can never fit', async () => {
    expect((await chatRequest(gateway.origin, 'm-tpm')).status).toBe(200);
    expect(await lastOutcome(gateway, 'm-tpm', 1)).toMatchObject({
      status: 'completed',
      channelId: 'tpm-ok',
      attempts: 1,
      failovers: [],
    });
  });

  it('settles the channel token reservation to the actual usage', async () => {
    // Each request reserves ~4 100 tokens (input + 4096) of 5 000: only the settlement to the
    // fixture's 29 actual tokens lets the second and third in.
    for (let i = 1; i <= 3; i++) {
      expect((await chatRequest(gateway.origin, 'm-settle')).status).toBe(200);
      expect(await lastOutcome(gateway, 'm-settle', i)).toMatchObject({
        status: 'completed',
        channelId: 'settle-tpm',
        usage: { input: { total: 19 }, output: { total: 10 } },
      });
    }
    const state = await memoryLimiter.admit([{ scope: 'channel:settle-tpm', rpm: null, tpm: 5_000 }], 0);
    expect(state.states[0]?.remaining).toBeGreaterThanOrEqual(5_000 - 3 * 29 - 1);
  });
});

describe('bounded failover', () => {
  it('tries at most maxAttempts channels', async () => {
    const before = upstream.requests.filter((r) => r.body.includes('fail-503')).length;
    const response = await chatRequest(gateway.origin, 'm-cap');
    expect(response.status).toBe(503); // the last channel's upstream status
    const outcome = await lastOutcome(gateway, 'm-cap', 1);
    expect(outcome).toMatchObject({ status: 'failed', attempts: 2, errorKind: 'upstream-unavailable' });
    expect(outcome?.failovers).toHaveLength(2);
    expect(outcome?.failovers[0]?.nextChannelId).toBe(outcome?.failovers[1]?.channelId);
    expect(outcome?.failovers[1]?.nextChannelId).toBeUndefined();
    expect(upstream.requests.filter((r) => r.body.includes('fail-503')).length - before).toBe(2);
  });

  it('waits a short upstream Retry-After (400 ms) before the next attempt', async () => {
    const sentAt = Date.now();
    expect((await chatRequest(gateway.origin, 'm-backoff')).status).toBe(200);
    const outcome = await lastOutcome(gateway, 'm-backoff', 1);
    expect(outcome).toMatchObject({ status: 'completed', channelId: 'backup', attempts: 2 });
    expect(outcome?.failovers).toEqual([
      {
        channelId: 'ra-short',
        errorKind: 'upstream-rate-limited',
        upstreamStatus: 429,
        retryAfterMs: 400,
        latencyMs: expect.any(Number),
        nextChannelId: 'backup',
      },
    ]);
    const failedAt = retryUpstream.arrivals.at(-1) as number;
    expect(failedAt).toBeGreaterThanOrEqual(sentAt);
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(400);
    expect(outcome?.latencyMs).toBeGreaterThanOrEqual(400);
  });

  it('does not wait a long upstream Retry-After (30 s): the next channel is tried at once', async () => {
    expect((await chatRequest(gateway.origin, 'm-nowait')).status).toBe(200);
    const outcome = await lastOutcome(gateway, 'm-nowait', 1);
    expect(outcome).toMatchObject({
      status: 'completed',
      channelId: 'backup',
      attempts: 2,
      failovers: [{ channelId: 'ra-long', retryAfterMs: 30_000 }],
    });
    expect(outcome?.latencyMs).toBeLessThan(1_000);
  });
});

describe.skipIf(withoutEngines)('channel limits across two gateway nodes (shared Redis limiter)', () => {
  const prefix = `tollgate-test:channel-limits:${randomUUID()}:`;
  let nodes: TestGateway[] = [];
  let limiters: RateLimiter[] = [];
  let redisUrl = '';

  beforeAll(async () => {
    redisUrl = await requireEngineUrl('REDIS_URL');
    limiters = [0, 1].map(() => createRedisRateLimiter({ url: redisUrl, keyPrefix: prefix }));
    const config = {
      channels: [chat('shared-limited', 10, { 'm-shared': 'text' }), chat('shared-spare', 0, { 'm-shared': 'text' })],
    };
    const limits: Limits = { 'shared-limited': { rpm: 1, tpm: 100_000 } };
    nodes = await Promise.all(
      limiters.map((limiter) =>
        startTestGateway(config, { channelLimits: createChannelLimits({ limiter, limitsOf: (id) => limits[id] }) }),
      ),
    );
  });

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await Promise.all(limiters.map((l) => l.close()));
    if (!redisUrl) return;
    const admin = new Redis(redisUrl);
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it('a channel used up through one node is skipped by the other', async () => {
    const [a, b] = nodes as [TestGateway, TestGateway];
    expect((await chatRequest(a.origin, 'm-shared')).status).toBe(200);
    expect(await lastOutcome(a, 'm-shared', 1)).toMatchObject({ channelId: 'shared-limited' });
    expect((await chatRequest(b.origin, 'm-shared')).status).toBe(200);
    expect(await lastOutcome(b, 'm-shared', 1)).toMatchObject({
      channelId: 'shared-spare',
      attempts: 1,
      failovers: [],
    });
    const admin = new Redis(redisUrl);
    try {
      expect(await admin.get(`${prefix}rl:{channel:shared-limited}:tokens`)).toMatch(/^\d+:\d+:100000$/);
    } finally {
      await admin.quit();
    }
  });
});
