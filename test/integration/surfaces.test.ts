/**
 * The remaining client surfaces: token counting (upstream count endpoint or local estimate),
 * model lists in each SDK's shape, pass-through byte fidelity with a usage tap, and a client that
 * goes away mid-stream (upstream aborted, delivered part billed as partial).
 */
import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream } from '../../gateway/mock/mock-upstream-server.ts';
import { estimateInputTokens } from '../../gateway/tokenize/estimate-tokens.ts';
import { fixturePath, startFixtureUpstream, type FixtureUpstream } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

let upstream: FixtureUpstream;
let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  mock = await startMockUpstream();
  gateway = await startTestGateway(
    {
      channels: [
        { id: 'mock-anthropic', provider: 'mock', protocol: 'anthropic-messages', models: ['mock-claude'] },
        { id: 'mock-gemini', provider: 'mock', protocol: 'gemini', models: ['mock-gemini'] },
        { id: 'mock-chat', provider: 'mock', protocol: 'openai-chat', models: ['mock-chat'] },
        {
          id: 'fake-anthropic',
          provider: 'anthropic',
          protocol: 'anthropic-messages',
          baseUrl: upstream.baseUrl('anthropic-messages'),
          apiKey: 'k',
          modelMap: { 'claude-fixture': 'text' },
        },
        {
          id: 'fake-chat',
          provider: 'deepseek',
          protocol: 'openai-chat',
          baseUrl: upstream.baseUrl('openai-chat'),
          apiKey: 'k',
          modelMap: { 'deepseek-fixture': 'reasoning' },
        },
      ],
    },
    { mockBaseUrl: mock.baseUrl },
  );
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await mock?.close();
});

describe('token counting', () => {
  const messages = [{ role: 'user' as const, content: 'Count the tokens of this sentence, please.' }];
  const localEstimate = estimateInputTokens({
    clientFormat: 'anthropic-messages',
    model: 'x',
    stream: false,
    messages: [{ role: 'user', content: [{ type: 'text', text: messages[0]!.content }] }],
  });

  it('Anthropic SDK countTokens: via the upstream count endpoint (mock) and the local estimate (no endpoint)', async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const viaUpstream = await client.messages.countTokens({ model: 'mock-claude', messages });
    expect(viaUpstream.input_tokens).toBe(localEstimate); // the mock counts with the same tokenizer
    const local = await client.messages.countTokens({ model: 'mock-chat', messages });
    expect(local.input_tokens).toBe(localEstimate);
    await expect(client.messages.countTokens({ model: 'nope', messages })).rejects.toBeInstanceOf(
      Anthropic.NotFoundError,
    );
  });

  it('Gemini SDK countTokens', async () => {
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin } });
    const counted = await ai.models.countTokens({
      model: 'mock-gemini',
      contents: 'Count the tokens of this sentence, please.',
    });
    expect(counted.totalTokens).toBeGreaterThan(5);
  });

  it('OpenAI /v1/responses/input_tokens', async () => {
    const response = await request(`${gateway.origin}/v1/responses/input_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-chat', input: 'Count the tokens of this sentence, please.' }),
    });
    expect(response.statusCode).toBe(200);
    expect(await response.body.json()).toMatchObject({
      object: 'response.input_tokens',
      input_tokens: expect.any(Number),
    });
  });
});

describe('model lists in each SDK shape', () => {
  const served = ['claude-fixture', 'deepseek-fixture', 'mock-chat', 'mock-claude', 'mock-gemini'];
  it('openai models.list', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(served);
    expect((await client.models.retrieve('mock-chat')).owned_by).toBe('mock');
  });
  it('anthropic models.list (paginated)', async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const ids = [];
    for await (const model of client.models.list({ limit: 2 })) ids.push(model.id);
    expect(ids).toEqual(served);
  });
  it('gemini models.list (paginated)', async () => {
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin } });
    const names = [];
    for await (const model of await ai.models.list({ config: { pageSize: 2 } })) names.push(model.name);
    expect(names).toEqual(served.map((id) => `models/${id}`));
  });
});

describe('pass-through', () => {
  it('forwards the Anthropic body unchanged but for the model, and returns the upstream bytes', async () => {
    const body = {
      model: 'claude-fixture',
      max_tokens: 77,
      metadata: { user_id: 'u-1' },
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
    };
    const response = await request(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(await response.body.text()).toBe(readFileSync(fixturePath('anthropic-messages', 'text', 'json')!, 'utf8'));
    expect(JSON.parse(upstream.requests.at(-1)!.body)).toEqual({ ...body, model: 'text' });
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'claude-fixture'));
    const outcome = gateway.outcomes.find((o) => o.model === 'claude-fixture');
    expect(outcome).toMatchObject({ passThrough: true, status: 'completed' });
    expect(outcome?.usage?.source).toBe('reported');
  });

  it('streams Chat Completions bytes unchanged when the client asked for usage; the tap reads DeepSeek usage', async () => {
    const response = await request(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'deepseek-fixture',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(await response.body.text()).toBe(readFileSync(fixturePath('openai-chat', 'reasoning', 'sse')!, 'utf8'));
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'deepseek-fixture'));
    const expected = JSON.parse(readFileSync(fixturePath('openai-chat', 'reasoning', 'expect.json')!, 'utf8')) as {
      usage: { inputTotal: number; cacheRead: number; outputTotal: number; reasoning: number };
    };
    const outcome = gateway.outcomes.find((o) => o.model === 'deepseek-fixture');
    expect(outcome?.passThrough).toBe(true);
    expect(outcome?.usage).toEqual({
      input: { total: expected.usage.inputTotal, cacheRead: expected.usage.cacheRead, cacheWrite: 0 },
      output: { total: expected.usage.outputTotal, reasoning: expected.usage.reasoning },
      source: 'reported',
    });
  });
});

describe('a client that goes away mid-stream', () => {
  it('aborts the upstream and records a cancelled outcome with partial usage', async () => {
    const controller = new AbortController();
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create(
      {
        model: 'mock-chat',
        stream: true,
        messages: [{ role: 'user', content: 'a long answer please, word after word after word [mock:slow=100]' }],
      },
      { signal: controller.signal },
    );
    let chunks = 0;
    // openai v6 ends the iteration quietly when its own signal aborts.
    for await (const _ of stream) if (++chunks === 2) controller.abort();
    expect(chunks).toBe(2);
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'mock-chat' && o.status === 'cancelled'));
    const outcome = gateway.outcomes.find((o) => o.model === 'mock-chat' && o.status === 'cancelled');
    expect(outcome?.usage?.source).toBe('partial');
    expect(outcome?.usage?.output.total).toBeGreaterThan(0);
    expect(outcome?.usage?.input.total).toBeGreaterThan(0);
  });
});
