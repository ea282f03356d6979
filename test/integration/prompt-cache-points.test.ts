/**
 * Prompt-cache breakpoints across protocols: an Anthropic client's `cache_control` marks (on the
 * system prompt, a tool and the last turn) become Bedrock Converse `cachePoint` blocks at the same
 * places for Claude, system and turn points only for Amazon Nova, none for other Bedrock models;
 * and `cache_control` again, lifetimes kept, when the request is translated to the Messages API
 * of Claude through Bedrock InvokeModel. The client is the official `@anthropic-ai/sdk`; the
 * upstream is the Bedrock fake, which refuses a malformed cache point as Bedrock does.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_CREDENTIALS,
  startBedrockUpstream,
  type BedrockUpstream,
} from '../support/bedrock-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

const SIGV4_KEY = `${BEDROCK_TEST_CREDENTIALS.accessKeyId}:${BEDROCK_TEST_CREDENTIALS.secretAccessKey}`;
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const NOVA = 'us.amazon.nova-pro-v1:0';
const GPT_OSS = 'openai.gpt-oss-120b-1:0';

let fake: BedrockUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startBedrockUpstream();
  const channel = (id: string, protocol: string, modelMap: Record<string, string>) => ({
    id,
    provider: 'bedrock',
    protocol,
    baseUrl: fake.origin,
    apiKey: SIGV4_KEY,
    cloud: { auth: 'sigv4', region: BEDROCK_FAKE_REGION },
    modelMap,
  });
  gateway = await startTestGateway({
    channels: [
      channel('converse', 'bedrock-converse', {
        'claude-converse': `${CLAUDE}--text`,
        'nova-converse': `${NOVA}--text`,
        'oss-converse': `${GPT_OSS}--text`,
      }),
      channel('invoke', 'anthropic-messages', { 'claude-invoke': `${CLAUDE}--text` }),
    ],
  });
});

afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

const SYSTEM = 'You are a careful coding agent. '.repeat(20);

/** Sends a marked request as Claude Code does and returns the body the fake received. */
async function sendMarked(model: string): Promise<Record<string, unknown>> {
  const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
  const before = fake.requests.length;
  const answer = await client.messages.create({
    model,
    max_tokens: 256,
    system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral', ttl: '1h' } }],
    tools: [
      { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: {} } },
      {
        name: 'run',
        description: 'Run a command',
        input_schema: { type: 'object', properties: {} },
        cache_control: { type: 'ephemeral' },
      },
    ],
    messages: [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: [{ type: 'text', text: 'second question', cache_control: { type: 'ephemeral' } }] },
    ],
  });
  expect(answer.content.length).toBeGreaterThan(0);
  const received = fake.requests.slice(before);
  expect(received).toHaveLength(1);
  return JSON.parse(received[0]!.body) as Record<string, unknown>;
}

const POINT = { cachePoint: { type: 'default' } };

describe('cache_control marks from an Anthropic client', () => {
  it('become cache points after the system prompt, the tools and the marked turn for Claude on Converse', async () => {
    const body = await sendMarked('claude-converse');
    expect(body.system).toEqual([{ text: SYSTEM }, POINT]);
    const tools = (body.toolConfig as { tools: unknown[] }).tools;
    expect(tools).toHaveLength(3);
    expect(tools[2]).toEqual(POINT);
    const messages = body.messages as Array<{ content: unknown[] }>;
    expect(messages[0]?.content).toEqual([{ text: 'first question' }]);
    expect(messages[2]?.content).toEqual([{ text: 'second question' }, POINT]);
  });

  it('become system and turn cache points for Amazon Nova, which caches no tools', async () => {
    const body = await sendMarked('nova-converse');
    expect(body.system).toEqual([{ text: SYSTEM }, POINT]);
    expect((body.toolConfig as { tools: unknown[] }).tools).not.toContainEqual(POINT);
    expect((body.messages as Array<{ content: unknown[] }>)[2]?.content.at(-1)).toEqual(POINT);
  });

  it('are dropped for a Bedrock model without prompt caching, and the request is answered', async () => {
    const body = await sendMarked('oss-converse');
    expect(JSON.stringify(body)).not.toContain('cachePoint');
  });

  it('come back as cache_control, lifetimes kept, when translated for Claude through InvokeModel', async () => {
    const body = await sendMarked('claude-invoke');
    // InvokeModel reshapes the body: the request was translated, not passed through.
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'claude-invoke'));
    expect(gateway.outcomes.find((o) => o.model === 'claude-invoke')?.passThrough).toBe(false);
    expect(body.system).toEqual([{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    const tools = body.tools as Array<Record<string, unknown>>;
    expect(tools[0]).not.toHaveProperty('cache_control');
    expect(tools[1]?.cache_control).toEqual({ type: 'ephemeral' });
    const last = (body.messages as Array<{ content: Array<Record<string, unknown>> }>)[2]?.content.at(-1);
    expect(last).toMatchObject({ type: 'text', text: 'second question', cache_control: { type: 'ephemeral' } });
  });
});
