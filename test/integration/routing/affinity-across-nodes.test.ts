/**
 * Prompt-cache affinity across two gateway nodes sharing one Redis: every turn of a conversation,
 * whichever node it reaches, is served by the channel that served its first turn; conversations
 * still spread over both channels; a pinned channel that fails yields to failover and the
 * conversation is re-pinned where it was served. The client is the official `openai` SDK; the
 * upstream replays recorded Chat Completions traffic (fixture-upstream.ts), one channel behind a
 * switch that can make it answer 503 like OpenAI's overloaded API.
 */
import { createServer, type Server } from 'node:http';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../../gateway/config/load-config.ts';
import { createLocalControlPlane } from '../../../gateway/control-plane/local-control-plane.ts';
import { createRedisAffinityStore } from '../../../infra/state-store/redis/redis-affinity-store.ts';
import type { AffinityStore } from '../../../schemas/state-store/affinity-store.ts';
import { withoutEngines } from '../../support/engines.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

const redisKeys = useRedisTestKeys('affinity-nodes');

/** Forwards to `target` unless switched to failing: then answers OpenAI's 503 overloaded error. */
async function startSwitch(target: string): Promise<{ origin: string; failing: boolean; close(): Promise<void> }> {
  const state = { failing: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.failing) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error', code: null } }));
        return;
      }
      void request(`${target}${req.url ?? '/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
        body: Buffer.concat(chunks),
      }).then(async (answer) => {
        res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? '') });
        res.end(Buffer.from(await answer.body.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return Object.assign(state, {
    origin,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

describe.skipIf(withoutEngines)('prompt-cache affinity across two nodes on Redis', () => {
  let upstream: FixtureUpstream;
  let switchA: Awaited<ReturnType<typeof startSwitch>>;
  const nodes: TestGateway[] = [];
  const stores: AffinityStore[] = [];

  beforeAll(async () => {
    upstream = await startFixtureUpstream();
    switchA = await startSwitch(upstream.origin);
    const channel = (id: string, baseUrl: string) => ({
      id,
      provider: 'openai',
      protocol: 'openai-chat',
      baseUrl,
      apiKey: 'sk-upstream',
      modelMap: { 'gpt-conv': 'text' },
    });
    const config = {
      channels: [channel('chan-a', `${switchA.origin}/v1`), channel('chan-b', upstream.baseUrl('openai-chat'))],
    };
    // Both nodes follow one control plane, as production nodes follow one config topic: the same key ids.
    const controlPlane = createLocalControlPlane(
      parseConfigFile({ keys: [{ name: 'test', key: TEST_KEY }], ...config }, {}),
    );
    for (let i = 0; i < 2; i++) {
      const store = createRedisAffinityStore({ url: redisKeys.url, keyPrefix: redisKeys.prefix });
      stores.push(store);
      nodes.push(await startTestGateway(config, { affinityStore: store, controlPlane }));
    }
  });

  afterAll(async () => {
    for (const node of nodes) await node.close();
    for (const store of stores) await store.close();
    await switchA?.close();
    await upstream?.close();
  });

  const client = (node: TestGateway) => new OpenAI({ apiKey: TEST_KEY, baseURL: `${node.origin}/v1`, maxRetries: 0 });

  /** Sends turn `turn` (1-based) of conversation `name` through `node`; resolves with the outcome. */
  async function turn(node: TestGateway, name: string, turnNumber: number) {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a careful coding agent. '.repeat(40) },
      { role: 'user', content: `conversation ${name}: first task` },
    ];
    for (let i = 1; i < turnNumber; i++)
      messages.push({ role: 'assistant', content: `answer ${i}` }, { role: 'user', content: `follow-up ${i}` });
    const before = node.outcomes.length;
    const answer = await client(node).chat.completions.create({ model: 'gpt-conv', messages });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    await waitFor(() => node.outcomes.length > before);
    return node.outcomes[node.outcomes.length - 1]!;
  }

  it('keeps each conversation on one channel whichever node a turn reaches, and spreads conversations', async () => {
    const servedBy = new Map<string, Set<string>>();
    const results: string[] = [];
    for (let c = 0; c < 16; c++) {
      const name = `c${c}`;
      for (let t = 1; t <= 4; t++) {
        const outcome = await turn(nodes[t % 2]!, name, t);
        servedBy.set(name, (servedBy.get(name) ?? new Set()).add(outcome.channelId!));
        results.push(`${t === 1 ? 'first' : 'later'}:${outcome.affinity}`);
      }
    }
    for (const [name, channels] of servedBy) expect(channels.size, name).toBe(1);
    const firstChannels = new Set([...servedBy.values()].map((s) => [...s][0]));
    expect(firstChannels).toEqual(new Set(['chan-a', 'chan-b']));
    expect(results.filter((r) => r === 'first:new')).toHaveLength(16);
    expect(results.filter((r) => r === 'later:hit')).toHaveLength(48);
  });

  it('yields to failover when the pinned channel fails, and re-pins the conversation where it was served', async () => {
    // Find a conversation pinned to chan-a.
    let name = '';
    for (let c = 0; c < 40 && !name; c++) {
      const outcome = await turn(nodes[0]!, `fail-${c}`, 1);
      if (outcome.channelId === 'chan-a') name = `fail-${c}`;
    }
    expect(name).not.toBe('');
    switchA.failing = true;
    try {
      const moved = await turn(nodes[1]!, name, 2);
      expect(moved).toMatchObject({ status: 'completed', channelId: 'chan-b', affinity: 'moved' });
      expect(moved.failovers.map((f) => f.channelId)).toEqual(['chan-a']);
      const after = await turn(nodes[0]!, name, 3);
      expect(after).toMatchObject({ channelId: 'chan-b', affinity: 'hit', attempts: 1 });
    } finally {
      switchA.failing = false;
    }
  });
});
