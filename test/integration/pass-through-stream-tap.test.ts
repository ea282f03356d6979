/**
 * The pass-through stream tap: upstream bytes reach the client unchanged while the relay parses
 * only the events that carry the outcome. Its guarantee: a stream cut short is still billed on
 * everything it relayed, the unparsed continuation events included; a complete stream on its
 * reported usage. Official SDKs as clients, the mock provider as upstream speaking each client's
 * own protocol (so the body passes through), streaming one chunk per word every 20 ms.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream } from '../../gateway/mock/mock-upstream-server.ts';
import { countTextTokens } from '../../gateway/tokenize/estimate-tokens.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let gateway: TestGateway;

/** A prompt whose mock reply ("Mock reply to: …") runs to many chunks, slowed to 20 ms each. */
const LONG_PROMPT = `${Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')} [mock:slow=20]`;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startTestGateway(
    {
      channels: [
        { id: 'chat', provider: 'mock', protocol: 'openai-chat', models: ['tap-chat', 'tap-chat-complete'] },
        { id: 'messages', provider: 'mock', protocol: 'anthropic-messages', models: ['tap-messages'] },
      ],
    },
    { mockBaseUrl: mock.baseUrl },
  );
});

afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

/** The outcome of the request for `model`, once recorded. */
async function outcomeOf(model: string) {
  await waitFor(() => gateway.outcomes.some((o) => o.model === model));
  return gateway.outcomes.find((o) => o.model === model);
}

/**
 * The request for `model`, left by its client after reading `received`, is recorded cancelled on
 * the pass-through path and billed on its output as relayed: what the client read, and at most a
 * chunk or two already on their way.
 */
async function expectBilledOnRelayed(model: string, received: string): Promise<void> {
  const outcome = await outcomeOf(model);
  expect(outcome).toMatchObject({ status: 'cancelled', passThrough: true });
  expect(outcome?.usage?.source).toBe('partial');
  const relayed = countTextTokens(received);
  expect(relayed).toBeGreaterThan(15);
  expect(outcome?.usage?.output.total).toBeGreaterThanOrEqual(relayed);
  expect(outcome?.usage?.output.total).toBeLessThanOrEqual(relayed + 6);
}

describe('pass-through stream tap', () => {
  it('bills a Chat stream the client left on every token it was relayed', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'tap-chat',
      messages: [{ role: 'user', content: LONG_PROMPT }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let received = '';
    let deltas = 0;
    for await (const chunk of stream) {
      received += chunk.choices[0]?.delta?.content ?? '';
      if (++deltas === 25) break; // the SDK aborts the request
    }
    await expectBilledOnRelayed('tap-chat', received);
  });

  it('bills an Anthropic stream the client left on every token it was relayed', async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const stream = await client.messages.create({
      model: 'tap-messages',
      max_tokens: 500,
      messages: [{ role: 'user', content: LONG_PROMPT }],
      stream: true,
    });
    let received = '';
    let deltas = 0;
    for await (const event of stream) {
      if (event.type !== 'content_block_delta' || event.delta.type !== 'text_delta') continue;
      received += event.delta.text;
      if (++deltas === 25) break;
    }
    await expectBilledOnRelayed('tap-messages', received);
  });

  it("bills a complete Chat stream on the upstream's usage, the bytes unchanged", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const prompt = 'one two three four five six seven eight nine ten';
    const stream = await client.chat.completions.create({
      model: 'tap-chat-complete',
      messages: [{ role: 'user', content: prompt }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(`Mock reply to: ${prompt}`);
    const outcome = await outcomeOf('tap-chat-complete');
    expect(outcome).toMatchObject({ status: 'completed', passThrough: true });
    expect(outcome?.usage).toMatchObject({ source: 'reported', output: { total: usage?.completion_tokens } });
  });
});
