/**
 * Any gateway node continues any chain: two gateway apps sharing one Redis (the Redis response
 * store, one key prefix) and the same key-digest secret. A response created through node A is
 * retrieved through node B, continued through node B (its upstream request carries turn one), and
 * deleted through node B, after which node A answers 404 and refuses it as previous response.
 */
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../../gateway/config/load-config.ts';
import { createLocalControlPlane } from '../../../gateway/control-plane/local-control-plane.ts';
import { createRedisResponseStore } from '../../../infra/state-store/redis/redis-response-store.ts';
import type { ResponseStore } from '../../../schemas/state-store/response-store.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../support/start-gateway.ts';
import { withoutEngines } from '../../support/engines.ts';

const redisKeys = useRedisTestKeys('responses-nodes');
let upstream: FixtureUpstream;
const nodes: Array<{ gateway: TestGateway; store: ResponseStore; client: OpenAI }> = [];

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  const configFile = {
    keys: [{ name: 'test', key: TEST_KEY }],
    channels: [
      {
        id: 'claude',
        provider: 'anthropic',
        protocol: 'anthropic-messages',
        baseUrl: upstream.baseUrl('anthropic-messages'),
        apiKey: 'k',
        modelMap: { 'node-claude': 'text' },
      },
      {
        id: 'responses',
        provider: 'openai',
        protocol: 'openai-responses',
        baseUrl: upstream.baseUrl('openai-responses'),
        apiKey: 'k',
        modelMap: { 'node-responses': 'reasoning' },
      },
    ],
  };
  // Every node of one deployment shares the key-digest secret, so a key has the same id everywhere.
  const secrets = { masterKey: randomBytes(32), hmacSecret: randomBytes(32) };
  const config = parseConfigFile(configFile, { LOG_LEVEL: 'silent' });
  for (let i = 0; i < 2; i++) {
    const store = createRedisResponseStore({ url: redisKeys.url, keyPrefix: redisKeys.prefix });
    const gateway = await startTestGateway(configFile, {
      responseStore: store,
      controlPlane: createLocalControlPlane(config, secrets),
    });
    nodes.push({
      gateway,
      store,
      client: new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 }),
    });
  }
});

afterAll(async () => {
  for (const node of nodes) {
    await node.gateway.close();
    await node.store.close();
  }
  await upstream?.close();
});

describe.skipIf(withoutEngines)('two gateway nodes on one Redis', () => {
  it("continue, retrieve and delete each other's responses", async () => {
    const [a, b] = [nodes[0]!, nodes[1]!];
    const first = await a.client.responses.create({ model: 'node-claude', input: 'Started on node A' });
    expect(await b.client.responses.retrieve(first.id)).toEqual(first);
    const stream = await b.client.responses.create({
      model: 'node-responses',
      previous_response_id: first.id,
      input: 'Continued on node B',
      stream: true,
    });
    let continued: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') continued = event.response;
    expect(continued?.previous_response_id).toBe(first.id);
    const sent = JSON.parse(upstream.requests.at(-1)!.body) as Record<string, unknown>;
    expect(sent.previous_response_id).toBeUndefined();
    expect(JSON.stringify(sent.input)).toContain('Started on node A');
    expect(JSON.stringify(sent.input)).toContain('Hello! How can I help you today?');
    const items = [];
    for await (const item of a.client.responses.inputItems.list(continued!.id, { order: 'asc' })) items.push(item);
    expect(items.map((item) => item.type)).toEqual(['message', 'message', 'message']);
    await b.client.responses.delete(first.id);
    await expect(a.client.responses.retrieve(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      a.client.responses.create({
        model: 'node-claude',
        previous_response_id: continued!.id,
        input: 'after the delete',
      }),
    ).rejects.toMatchObject({ status: 400, code: 'previous_response_not_found' });
    expect(a.gateway.outcomes.length + b.gateway.outcomes.length).toBe(2);
  });
});
