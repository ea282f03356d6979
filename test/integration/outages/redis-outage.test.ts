/**
 * Redis down: admission decides fast under the outage policy, the console says what is down, the
 * outage is logged once per transition, and limits apply again once Redis is back.
 *
 * The test starts its OWN redis-server on a free port and stops, freezes (SIGSTOP) and restarts
 * only that process, by its pid — never the shared engines other tests use. Two gateways share
 * it: one with the default policy (RPM/TPM and quotas fail open), one with
 * TOLLGATE_LIMITS_ON_STORE_OUTAGE=closed. Figures (ms) are printed for the record.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { createRedisRateLimiter } from '../../../infra/state-store/redis/redis-rate-limiter.ts';
import { createRedisSessionStore } from '../../../infra/state-store/redis/redis-session-store.ts';
import { createRedisStateStore } from '../../../infra/state-store/redis/redis-state-store.ts';
import type { StateStoreLog } from '../../../infra/state-store/redis/guarded-redis.ts';
import { StateStoreUnavailableError } from '../../../schemas/state-store/state-store-unavailable.ts';
import { startTestGateway, type TestGateway } from '../../support/start-gateway.ts';
import { freePort } from '../../support/free-port.ts';

const ADMIN = 'redis-outage-admin-token-000';
const PREFIX = 'tollgate-outage:';

/** Whether a redis-server answers PING on `port` within 200 ms. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(200, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}

/** Starts redis-server on `port` (no persistence) and waits until it answers. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 10_000;
  while (!(await pings(port))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

/** Stops the redis-server this test started (by its pid) and waits for it to exit. */
async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid as number, 'SIGCONT'); // a frozen server must run to exit
  process.kill(child.pid as number, 'SIGKILL');
  await exited;
}

interface Node {
  readonly gateway: TestGateway;
  readonly logs: Array<{ level: string; message: string }>;
  readonly close: () => Promise<void>;
}

async function startNode(url: string, mockBaseUrl: string, env: Record<string, string>): Promise<Node> {
  const logs: Array<{ level: string; message: string }> = [];
  const log: StateStoreLog = (level, message) => void logs.push({ level, message });
  const options = { url, keyPrefix: PREFIX, log };
  const limiter = createRedisRateLimiter(options);
  const stateStore = createRedisStateStore(options);
  const sessionStore = createRedisSessionStore(options);
  const gateway = await startTestGateway(
    { channels: [{ id: 'mock', provider: 'mock', protocol: 'openai-chat', models: ['mock-1'] }] },
    { mockBaseUrl, limiter, stateStore, sessionStore, healthRefreshMs: 200 },
    { TOLLGATE_ADMIN_TOKEN: ADMIN, ...env },
  );
  return {
    gateway,
    logs,
    close: async () => {
      await gateway.close();
      await Promise.all([limiter.close(), stateStore.close(), sessionStore.close()]);
    },
  };
}

async function createKey(node: Node, body: Record<string, unknown>): Promise<string> {
  const response = await request(`${node.gateway.origin}/admin/api/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.body.json()) as { apiKey: string };
  expect(response.statusCode, JSON.stringify(json)).toBe(201);
  return json.apiKey;
}

/** One chat request: its status, body and how long it took (ms). */
async function chat(
  node: Node,
  key: string,
): Promise<{ status: number; ms: number; body: any; retryAfter: string | undefined }> {
  const started = performance.now();
  const response = await request(`${node.gateway.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = await response.body.json();
  const retryAfter = response.headers['retry-after'];
  return {
    status: response.statusCode,
    ms: performance.now() - started,
    body,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
  };
}

/** `count` sequential requests plus `count` concurrent ones; their statuses and latencies (ms; p50 of all and of the sequential ones). */
async function burst(node: Node, key: string, count: number) {
  const results = [];
  for (let i = 0; i < count; i++) results.push(await chat(node, key));
  results.push(...(await Promise.all(Array.from({ length: count }, () => chat(node, key)))));
  const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
  const sequential = results
    .slice(0, count)
    .map((r) => r.ms)
    .sort((a, b) => a - b);
  return {
    statuses: results.map((r) => r.status),
    results,
    p50: sorted[Math.floor(sorted.length / 2)] as number,
    max: sorted[sorted.length - 1] as number,
    sequentialP50: sequential[Math.floor(count / 2)] as number,
  };
}

async function signIn(node: Node): Promise<{ status: number; ms: number; message: string }> {
  const started = performance.now();
  const response = await request(`${node.gateway.origin}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: 'nobody', password: 'whatever-password' }),
  });
  const body = (await response.body.json()) as { error?: { message?: string } };
  return { status: response.statusCode, ms: performance.now() - started, message: body.error?.message ?? '' };
}

let port: number;
let redis: ChildProcess;
let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let open: Node;
let closed: Node;
const figures: Record<string, number> = {};

beforeAll(async () => {
  port = await freePort();
  redis = await startRedis(port);
  mock = await startMockUpstream();
  const url = `redis://127.0.0.1:${port}`;
  open = await startNode(url, mock.baseUrl, {});
  closed = await startNode(url, mock.baseUrl, { TOLLGATE_LIMITS_ON_STORE_OUTAGE: 'closed' });
}, 60_000);

afterAll(async () => {
  await open?.close();
  await closed?.close();
  await mock?.close();
  if (redis) await stopRedis(redis);
  console.log('redis outage figures (ms):', JSON.stringify(figures));
});

describe('redis outage', () => {
  it('decides fast while Redis is down or frozen, says so, and applies limits again once it is back', async () => {
    // Keys with a quota and limits, so that admission reads spend counters and runs the limiter.
    const busy = await createKey(open, { name: 'busy', rpm: 100_000, tpm: 100_000_000, quotaUsd: '1000' });
    const strict = await createKey(open, { name: 'strict', rpm: 3 });
    const closedKey = await createKey(closed, { name: 'closed', rpm: 100_000, quotaUsd: '1000' });

    // Healthy: the baseline, and the strict key's limit applies (3 a minute, then 429).
    const healthy = await burst(open, busy, 10);
    expect(healthy.statuses.every((s) => s === 200)).toBe(true);
    figures.healthyP50 = healthy.p50;
    figures.healthySequentialP50 = healthy.sequentialP50;
    expect((await Promise.all([1, 2, 3].map(() => chat(open, strict)))).map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await chat(open, strict)).status).toBe(429);

    // Redis stopped: fail open for the default policy, 503 for `closed`, fast either way.
    await stopRedis(redis);
    const down = await burst(open, busy, 20);
    figures.downP50 = down.p50;
    figures.downSequentialP50 = down.sequentialP50;
    figures.downMax = down.max;
    expect(down.statuses.every((s) => s === 200)).toBe(true);
    expect(down.p50).toBeLessThan(200);
    expect(down.max).toBeLessThan(2000);
    const unlimited = await Promise.all([1, 2, 3, 4, 5].map(() => chat(open, strict)));
    expect(unlimited.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await chat(closed, closedKey);
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toMatch(
      /Rate limits cannot be checked right now: the rate limiter \(Redis\) is unreachable/,
    );
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.ms).toBeLessThan(2000);
    const signInDown = await signIn(open);
    figures.signInDownMs = signInDown.ms;
    expect(signInDown.status).toBe(503);
    expect(signInDown.message).toMatch(
      /^sign-in is unavailable: the (rate limiter|session store) \(Redis\) is unreachable/,
    );
    expect(signInDown.ms).toBeLessThan(2000);

    // Redis back (an empty one: nothing was persisted): the outage ends, limits apply again.
    const restartedAt = Date.now();
    redis = await startRedis(port);
    let recovered = false;
    while (!recovered) {
      expect(Date.now() - restartedAt, 'limits apply again within 10 s of Redis answering').toBeLessThan(10_000);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await chat(open, strict)).status);
      recovered = statuses.includes(429);
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    figures.recoveryMs = Date.now() - restartedAt;
    // The `closed` node admits again once its own client has reconnected (within a few hundred ms).
    let closedStatus = (await chat(closed, closedKey)).status;
    while (closedStatus !== 200 && Date.now() - restartedAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      closedStatus = (await chat(closed, closedKey)).status;
    }
    expect(closedStatus).toBe(200);
    expect(open.logs.filter((l) => l.message.startsWith('rate limiter (Redis) unreachable'))).toHaveLength(1);
    expect(open.logs.filter((l) => l.message.startsWith('rate limiter (Redis) reachable again'))).toHaveLength(1);

    // Redis frozen (accepts connections, never answers): the command deadline and the breaker bound the wait.
    process.kill(redis.pid as number, 'SIGSTOP');
    try {
      const frozen = await burst(open, busy, 20);
      figures.frozenP50 = frozen.p50;
      figures.frozenSequentialP50 = frozen.sequentialP50;
      figures.frozenMax = frozen.max;
      expect(frozen.statuses.every((s) => s === 200)).toBe(true);
      expect(frozen.p50).toBeLessThan(200);
      expect(frozen.max).toBeLessThan(2000);
    } finally {
      process.kill(redis.pid as number, 'SIGCONT');
    }
  });

  it('fails fast from the start when Redis refuses connections at start-up, and opens the breaker', async () => {
    const nowhere = `redis://127.0.0.1:${await freePort()}`;
    const logs: string[] = [];
    const limiter = createRedisRateLimiter({
      url: nowhere,
      keyPrefix: PREFIX,
      log: (_level, message) => void logs.push(message),
    });
    try {
      const reasons: string[] = [];
      const started = performance.now();
      for (let i = 0; i < 5; i++) {
        const error = await limiter.admit([{ scope: 'key:k', rpm: 1, tpm: null }], 0).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(StateStoreUnavailableError);
        reasons.push((error as StateStoreUnavailableError).reason);
      }
      figures.startUpFiveCallsMs = performance.now() - started;
      expect(figures.startUpFiveCallsMs).toBeLessThan(2000);
      expect(reasons.slice(-2)).toEqual(['circuit-open', 'circuit-open']);
      expect(logs.filter((m) => m.startsWith('rate limiter (Redis) unreachable'))).toHaveLength(1);
    } finally {
      await limiter.close();
    }
  });
});
