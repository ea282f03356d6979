/**
 * The mock provider answers deterministically in every upstream protocol, streams, reports usage,
 * and can be told to be slow or to fail — through the whole gateway, with official SDKs. Its
 * OpenAI Responses side also compacts, as `POST /v1/responses/compact` does
 * (https://platform.openai.com/docs/api-reference/responses/compact).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIRE_FORMATS } from '../../gateway/canonical/formats.ts';
import { MOCK_COMPACTION_PREFIX, openMockCompaction } from '../../gateway/mock/mock-compaction.ts';
import { startMockUpstream } from '../../gateway/mock/mock-upstream-server.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let gateway: TestGateway;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startTestGateway(
    {
      channels: [
        ...WIRE_FORMATS.map((protocol) => ({
          id: `mock-${protocol}`,
          provider: 'mock',
          protocol,
          models: [`mock-${protocol}`],
        })),
        {
          id: 'mock-failing',
          provider: 'mock',
          protocol: 'anthropic-messages',
          models: ['mock-failing'],
          mock: { failStatus: 503 },
        },
      ],
    },
    { mockBaseUrl: mock.baseUrl },
  );
});

afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

describe.each(WIRE_FORMATS)('mock channel speaking %s', (protocol) => {
  const model = `mock-${protocol}`;
  it('answers an Anthropic client, streamed and not, with usage', async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const message = await client.messages.create({
      model,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Mock reply to: ping' });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const streamed = await client.messages
      .stream({ model, max_tokens: 200, messages: [{ role: 'user', content: 'ping' }] })
      .finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'text', text: 'Mock reply to: ping' });
    expect(streamed.stop_reason).toBe('end_turn');
  });

  it('calls the first tool when tools are offered', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions
      .stream({
        model,
        messages: [{ role: 'user', content: 'weather in Oslo' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              parameters: { type: 'object', properties: { input: { type: 'string' } } },
            },
          },
        ],
      })
      .finalChatCompletion();
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ input: 'weather in Oslo' });
  });

  it('fails on request with [mock:fail=429] and the client sees a rate-limit error', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x [mock:fail=429]' }] }),
    ).rejects.toBeInstanceOf(OpenAI.RateLimitError);
  });
});

describe('mock behaviour from channel config', () => {
  it('a failing mock channel answers 5xx in the client format', async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const error = await client.messages
      .create({ model: 'mock-failing', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBeGreaterThanOrEqual(500);
  });

  it('[mock:slow=…] spaces stream chunks out (time to last byte grows)', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const started = Date.now();
    const stream = await client.chat.completions.create({
      model: 'mock-openai-chat',
      stream: true,
      messages: [{ role: 'user', content: 'slow please [mock:slow=40]' }],
    });
    let chunks = 0;
    for await (const _ of stream) chunks++;
    expect(chunks).toBeGreaterThan(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40 * 3);
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'mock-openai-chat' && o.stream));
  });
});

describe('mock compaction (POST /v1/responses/compact)', () => {
  it('through the gateway: user messages kept, then one opaque compaction item, with usage; the window continues the chain', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const compacted = await client.responses.compact({
      model: 'mock-openai-responses',
      input: [
        { type: 'message', role: 'user', content: 'Launch on Tuesday.' },
        { type: 'message', role: 'assistant', content: 'Understood.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Notify support first.' }] },
      ],
    });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.id).toMatch(/^resp_/);
    expect(compacted.output).toHaveLength(3);
    expect(compacted.output.slice(0, 2)).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_/),
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'Launch on Tuesday.' }],
      },
      {
        type: 'message',
        id: expect.stringMatching(/^msg_/),
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'Notify support first.' }],
      },
    ]);
    const item = compacted.output[2];
    expect(item).toMatchObject({ type: 'compaction', id: expect.stringMatching(/^cmp_/) });
    const encrypted = item?.type === 'compaction' ? item.encrypted_content : '';
    expect(encrypted.startsWith(MOCK_COMPACTION_PREFIX)).toBe(true);
    expect(openMockCompaction(encrypted)).toBe(
      'Mock summary of 2 user turn(s): ["Launch on Tuesday.","Notify support first."]',
    );
    expect(compacted.usage.input_tokens).toBeGreaterThan(0);
    expect(compacted.usage.output_tokens).toBeGreaterThan(0);

    // The compacted window is the base input of a new chain (passed back as-is, as the guide says).
    const next = await client.responses.create({
      model: 'mock-openai-responses',
      input: [
        ...compacted.output,
        { type: 'message', role: 'user', content: 'Continue.' },
      ] as OpenAI.Responses.ResponseInput,
    });
    expect(next.output_text).toBe('Mock reply to: Continue.');
  });

  it('on the mock itself: a missing model is a 400 naming it; [mock:fail=429] answers 429', async () => {
    const post = (body: unknown): Promise<Response> =>
      fetch(`${mock.baseUrl}/v1/responses/compact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const missing = await post({ input: 'hello' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'model' } });
    const failing = await post({ model: 'm', input: 'hello [mock:fail=429]' });
    expect(failing.status).toBe(429);
    const fine = await post({ model: 'm', input: 'hello' });
    expect(fine.status).toBe(200);
    expect(await fine.json()).toMatchObject({
      object: 'response.compaction',
      output: [{ type: 'message', role: 'user' }, { type: 'compaction' }],
    });
  });
});
