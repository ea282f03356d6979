/**
 * Two gateway nodes sharing real Kafka (the config topic) and Redis
 * (limits, spend, health) behave as one — limits hold globally, a key revoked on one node is
 * refused by the other within one second, and a channel turned unhealthy through one node is
 * avoided by the other. A console session opened on one node is valid on the other, and a price
 * set through one node bills the other node's requests a second later.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsumerPipeline } from '../../../consumers/start-consumer-pipeline.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../../infra/processes/consumer-pipeline-runners.ts';
import type { RunningConsumers } from '../../../consumers/run-consumers.ts';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { openAnalyticsStore, openEventLog, openStateStore } from '../../../infra/open-adapters.ts';
import { newNodeSecrets, startGatewayNode, type GatewayNode } from '../../support/gateway-node-harness.ts';
import { decimalToNano, eventually, isolatedEngineSettings } from '../../support/pipeline-harness.ts';
import { withoutEngines } from '../../support/engines.ts';

const CONFIG = {
  channels: [
    {
      id: 'flaky',
      provider: 'mock',
      protocol: 'anthropic-messages',
      models: ['health-model'],
      priority: 10,
      mock: { failStatus: 503 },
    },
    { id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model', 'health-model'] },
  ],
  keys: [],
};

let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let nodeA: GatewayNode;
let nodeB: GatewayNode;
let consumers: RunningConsumers;
let sharedState: ReturnType<typeof openStateStore>;
let sharedAnalytics: ReturnType<typeof openAnalyticsStore>;
let closeEngines: () => Promise<void>;

beforeAll(async () => {
  const settings = await isolatedEngineSettings('production');
  const secrets = newNodeSecrets();
  mock = await startMockUpstream();
  nodeA = await startGatewayNode({ settings, secrets, configFile: CONFIG, mockBaseUrl: mock.baseUrl });
  nodeB = await startGatewayNode({
    settings: { ...settings, dataDir: `${settings.dataDir}-b` },
    secrets,
    configFile: CONFIG,
    mockBaseUrl: mock.baseUrl,
  });
  // The feedback consumer folds node A's failovers into Redis health, which node B reads.
  const eventLog = openEventLog(settings);
  const state = openStateStore(settings);
  sharedState = state;
  const analytics = openAnalyticsStore(settings);
  sharedAnalytics = analytics;
  consumers = await startConsumerPipeline({
    runners: CONSUMER_PIPELINE_RUNNERS,
    eventLog,
    state,
    analytics,
    log: () => undefined,
  });
  closeEngines = async () => {
    await consumers.stop();
    await eventLog.close();
    await state.close();
    await analytics.close();
  };
}, 120_000);

afterAll(async () => {
  await nodeA?.close();
  await nodeB?.close();
  await closeEngines?.();
  await mock?.close();
}, 60_000);

const chat = (node: GatewayNode, key: string, model = 'chat-model') =>
  new OpenAI({ apiKey: key, baseURL: `${node.origin}/v1`, maxRetries: 0 }).chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hi' }],
  });

async function createKey(node: GatewayNode, body: Record<string, unknown>): Promise<{ apiKey: string; keyId: string }> {
  const created = await node.admin('POST', '/keys', body);
  expect(created.status).toBe(201);
  return { apiKey: created.body.apiKey, keyId: created.body.key.keyId };
}

describe.skipIf(withoutEngines)('two gateway nodes sharing Kafka and Redis', () => {
  it('hold an RPM limit globally', async () => {
    const { apiKey } = await createKey(nodeA, { name: 'shared-rpm', rpm: 5 });
    await eventually(
      async () =>
        (await chat(nodeB, apiKey)
          .then(() => 'ok')
          .catch((e: { status?: number }) => e.status)) === 'ok',
      true,
      5000,
    );
    // One request already used on node B; 11 more, interleaved across both nodes, all at once.
    const results = await Promise.all(
      Array.from({ length: 11 }, (_, i) =>
        chat(i % 2 === 0 ? nodeA : nodeB, apiKey).then(
          () => 200,
          (e: { status?: number; headers?: Headers }) => e.status,
        ),
      ),
    );
    const admitted = results.filter((s) => s === 200).length;
    expect(admitted).toBe(4);
    expect(results.filter((s) => s === 429)).toHaveLength(7);
  });

  it('bill, from one second after it was set on the other node, a request at the new price', async () => {
    const { apiKey } = await createKey(nodeA, { name: 'priced-on-a' });
    const set = await nodeA.admin('PUT', '/prices', { model: 'chat-model', inputPerMTok: 1000, outputPerMTok: 2000 });
    expect(set.status).toBeLessThan(300);
    const setAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, setAt + 1_000 - Date.now())));
    const { response } = await new OpenAI({ apiKey, baseURL: `${nodeB.origin}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: 'chat-model', messages: [{ role: 'user', content: 'priced on the other node' }] })
      .withResponse();
    const requestId = response.headers.get('x-request-id') ?? '';
    const row = async () =>
      (
        await sharedAnalytics.query<{ input: string; output: string; cost: string }>(
          `SELECT toString(input_tokens) AS input, toString(output_tokens) AS output, toString(cost_usd) AS cost FROM billing_lines FINAL WHERE request_id = '${requestId}'`,
        )
      )[0];
    await eventually(async () => (await row()) !== undefined, true, 30_000);
    const line = (await row())!;
    // 1000 and 2000 USD per million tokens = 1 000 000 and 2 000 000 nano-USD per token.
    expect(decimalToNano(line.cost)).toBe(BigInt(line.input) * 1_000_000n + BigInt(line.output) * 2_000_000n);
  });

  it('refuse a key revoked on the other node within one second', async () => {
    const { apiKey, keyId } = await createKey(nodeA, { name: 'to-revoke' });
    await eventually(
      async () =>
        (await chat(nodeB, apiKey)
          .then(() => 'ok')
          .catch(() => 'refused')) === 'ok',
      true,
      5000,
    );
    const revokedAt = Date.now();
    expect((await nodeA.admin('POST', `/keys/${keyId}/revoke`, { reason: 'test' })).status).toBe(200);
    let refusedAfter = -1;
    while (Date.now() - revokedAt < 2000) {
      const status = await chat(nodeB, apiKey).then(
        () => 200,
        (e: { status?: number }) => e.status ?? 0,
      );
      if (status === 401) {
        refusedAfter = Date.now() - revokedAt;
        break;
      }
    }
    expect(refusedAfter).toBeGreaterThanOrEqual(0);
    expect(refusedAfter).toBeLessThan(1000);
  });

  it('avoid on one node a channel that failed through the other', async () => {
    const { apiKey } = await createKey(nodeA, { name: 'health' });
    for (let i = 0; i < 3; i++) await chat(nodeA, apiKey, 'health-model');
    expect(
      nodeA.outcomes.filter((o) => o.model === 'health-model').every((o) => o.failovers[0]?.channelId === 'flaky'),
    ).toBe(true);
    // Node B never called `flaky` itself: only the shared health (consumer → Redis) can steer it.
    // Wait until the feedback consumer put `flaky` in cooldown, then for one refresh of B's view.
    await eventually(
      async () => ((await sharedState.getChannelHealth(['flaky']))[0]?.cooldownUntil ?? 0) > Date.now(),
      true,
      20_000,
    );
    await new Promise((r) => setTimeout(r, 400));
    await chat(nodeB, apiKey, 'health-model');
    const outcome = nodeB.outcomes.find((o) => o.model === 'health-model');
    expect(outcome).toMatchObject({ channelId: 'steady', attempts: 1, failovers: [] });
  });

  it('share console sessions: signed in on one node, a user works on the other and signs out there', async () => {
    const nora = await nodeA.admin('POST', '/users', { name: 'Nora', login: 'nora', password: 'nora-password' });
    expect(nora.status).toBe(201);
    await eventually(async () => (await nodeB.admin('GET', `/users/${nora.body.user.userId}`)).status, 200, 5_000);
    const signIn = await fetch(`${nodeA.origin}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'nora', password: 'nora-password' }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const console = (node: GatewayNode, method: string, path: string, body?: unknown) =>
      fetch(`${node.origin}/console/api${path}`, {
        method,
        headers: {
          cookie,
          'x-csrf-token': csrfToken,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const created = await console(nodeB, 'POST', '/keys', { name: 'made on B' });
    expect(created.status).toBe(201);
    const namesOnA = async () =>
      ((await (await console(nodeA, 'GET', '/keys')).json()) as { keys: Array<{ name: string }> }).keys.map(
        (k) => k.name,
      );
    await eventually(namesOnA, ['made on B'], 5_000);
    expect((await console(nodeB, 'DELETE', '/session')).status).toBe(204);
    expect((await console(nodeA, 'GET', '/keys')).status).toBe(401);
  });
});
